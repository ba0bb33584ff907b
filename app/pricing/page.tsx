import { AttemptField } from '@/components/attempt-field';
import { MarkdownHtml } from '@/components/markdown-html';
import { products, site, type Product } from '@/lib/content';
import { CANCELLATION_NOTICE_DAYS, MAX_HELD_SEATS_PER_CLIENT, SEAT_HOLD_MINUTES } from '@/lib/products';
import { paymentsConfigured } from '@/lib/services/payments';
import { settings } from '@/lib/settings';
import { renderMarkdown } from '@/lib/content/render';
import { formatPrice } from '@/lib/products/price';
import { formatMeeting, formatMoment, sessionMeetings } from '@/lib/products/when';
import { pageMetadata } from '@/lib/seo';
import { trainingCheckoutRoute } from '@/lib/write-routes/training-checkout';
import { checkoutRoute } from '@/lib/write-routes/checkout';
import { specialOfferCheckoutRoute } from '@/lib/write-routes/special-offer-checkout';

/**
 * Rendered at each request, so the buy buttons follow the settings the server runs with (a build
 * made without Stripe keys still sells once they are set); the page is still a read, cached and
 * validated like one (runtimeReadPages in lib/routes/manifest.ts).
 */
export const dynamic = 'force-dynamic';

export function generateMetadata() {
  return pageMetadata({ title: 'Pricing', description: `The training, digital bundles and book from ${site().name}, with prices.`, path: '/pricing' });
}

function BuyForm({ product }: { product: Product }) {
  if (product.kind === 'training') {
    return (
      <form method="post" action={trainingCheckoutRoute.path} className="buy-form">
        <input type="hidden" name="product" value={product.slug} />
        <AttemptField />
        <label htmlFor={`session-${product.slug}`}>Session</label>
        <select id={`session-${product.slug}`} name="session">
          {product.sessions.map((session) => (
            <option key={session.id} value={session.id}>
              {sessionMeetings(session).join(' and ')}
            </option>
          ))}
        </select>
        <label htmlFor={`seats-${product.slug}`}>Seats</label>
        <input id={`seats-${product.slug}`} name="seats" type="number" min={1} max={MAX_HELD_SEATS_PER_CLIENT} defaultValue={1} />
        <button type="submit" className="button">
          Book
        </button>
      </form>
    );
  }
  const action = product.kind === 'offer' ? specialOfferCheckoutRoute.path : checkoutRoute.path;
  return (
    <form method="post" action={action} className="buy-form">
      <input type="hidden" name="product" value={product.slug} />
      <AttemptField />
      <button type="submit" className="button">
        Buy {product.title}
      </button>
    </form>
  );
}

export default async function PricingPage() {
  const purchasable = paymentsConfigured(settings().payments);
  const list = await Promise.all(products().map(async (product) => ({ product, html: (await renderMarkdown(product.body)).html })));
  return (
    <>
      <h1>Pricing</h1>
      <p>
        Prices include VAT where it applies. A machine-readable copy of this page is at <a href="/pricing.md">/pricing.md</a>.
      </p>
      {!purchasable && <p className="notice">Purchases are not available on this site right now: payments are not configured.</p>}
      {list.map(({ product, html }) => (
        <section key={product.slug} className="card" aria-labelledby={`product-${product.slug}`}>
          <h2 id={`product-${product.slug}`}>{product.title}</h2>
          <p className="price">{formatPrice(product.price, product.currency)}</p>
          <p>{product.description}</p>
          {product.kind === 'offer' && (
            <p className="meta">
              Available from <time dateTime={product.starts}>{formatMoment(Date.parse(product.starts))}</time> until{' '}
              <time dateTime={product.ends}>{formatMoment(Date.parse(product.ends))}</time>.
            </p>
          )}
          {product.kind === 'training' && (
            <>
              <h3>Sessions</h3>
              <ul>
                {product.sessions.map((session) => (
                  <li key={session.id}>
                    {session.meetings.map((meeting, index) => (
                      <span key={meeting.start}>
                        {index > 0 && ' and '}
                        <time dateTime={meeting.start}>{formatMeeting(meeting)}</time>
                      </span>
                    ))}{' '}
                    · {session.seats} seats
                  </li>
                ))}
              </ul>
            </>
          )}
          <MarkdownHtml html={html} />
          {product.kind === 'training' && (
            <p>
              <strong>Cancelling and moving:</strong> cancel free of charge until {CANCELLATION_NOTICE_DAYS} days before your session starts, and the full price
              is refunded. After that, move your seats to a later session with free seats at no cost, until your session starts. Both with the link in your
              booking email.
            </p>
          )}
          {product.kind === 'training' && (
            <p>
              Book up to {MAX_HELD_SEATS_PER_CLIENT} seats at a time. Seats are held for you for {SEAT_HOLD_MINUTES} minutes while you pay, and one internet
              address can hold at most {MAX_HELD_SEATS_PER_CLIENT} at once. If a session is full by the time a late payment arrives, the payment is refunded in
              full.
            </p>
          )}
          {purchasable && <BuyForm product={product} />}
        </section>
      ))}
    </>
  );
}
