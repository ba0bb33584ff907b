import { describe, expect, it } from 'vitest';
import { productBySlug } from '@/lib/products';
import { attemptKey, checkoutUrls, lineItem, wrongKind } from '@/lib/write-routes/checkout-session';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings({ SITE_URL: 'https://shop.example' });

describe('checkout sessions', () => {
  it('key one attempt by client, attempt id and fields, so only the same form from the same address is the same session', () => {
    const key = attemptKey('checkout', '203.0.113.1', 'attempt-0123456789abcdef', ['fixture-book']);
    expect(key).toMatch(/^checkout:[A-Za-z0-9_-]{32}$/);
    expect(attemptKey('checkout', '203.0.113.1', 'attempt-0123456789abcdef', ['fixture-book'])).toBe(key);
    expect(attemptKey('checkout', '203.0.113.2', 'attempt-0123456789abcdef', ['fixture-book'])).not.toBe(key);
    expect(attemptKey('checkout', '203.0.113.1', 'attempt-0123456789abcdef', ['fixture-bundle'])).not.toBe(key);
  });

  it('make every post without an attempt id an attempt of its own', () => {
    expect(attemptKey('offer', '203.0.113.1', undefined, ['x'])).not.toBe(attemptKey('offer', '203.0.113.1', undefined, ['x']));
  });

  it('charge the price of content/products and send the buyer back to the site', () => {
    const book = productBySlug('fixture-book')!;
    expect(lineItem(book, 2).price_data).toMatchObject({ unit_amount: 2900, product_data: { name: book.title, metadata: { slug: 'fixture-book' } } });
    expect(lineItem(book, 2).quantity).toBe(2);
    expect(checkoutUrls(book)).toEqual({
      success_url: 'https://shop.example/checkout/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/checkout/cancelled?product=fixture-book',
    });
  });

  it('name the product field when a slug is of another kind', () => {
    expect(wrongKind('fixture-book', 'training')).toEqual({
      ok: false,
      problem: 'invalid-input',
      detail: 'No training has the slug "fixture-book".',
      errors: [{ path: 'product', message: 'must be the slug of a training' }],
    });
  });
});
