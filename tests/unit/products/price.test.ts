import { describe, expect, it } from 'vitest';
import { decimalPrice, formatPrice } from '@/lib/products/price';

describe('prices from minor units', () => {
  it('shows a price with its currency, by the currency’s own decimals', () => {
    expect(formatPrice(4900, 'EUR')).toBe('€49.00');
    expect(formatPrice(1999, 'USD')).toBe('$19.99');
    // The yen has no minor unit: 4900 is ¥4,900.
    expect(formatPrice(4900, 'JPY')).toBe('¥4,900');
  });

  it('writes the plain decimal amount agents and structured data read', () => {
    expect(decimalPrice(4900, 'EUR')).toBe('49.00');
    expect(decimalPrice(5, 'USD')).toBe('0.05');
    expect(decimalPrice(4900, 'JPY')).toBe('4900');
  });
});
