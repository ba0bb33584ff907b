import { MarkdownHtml } from '@/components/markdown-html';
import { products, site } from '@/lib/content';
import { renderMarkdown } from '@/lib/content/render';
import { formatPrice } from '@/lib/products/price';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ title: 'Pricing', description: `The training, digital bundles and book from ${site().name}, with prices.`, path: '/pricing' });
}

const sessionDate = new Intl.DateTimeFormat('en', { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' });

export default async function PricingPage() {
  const list = await Promise.all(products().map(async (product) => ({ product, html: (await renderMarkdown(product.body)).html })));
  return (
    <>
      <h1>Pricing</h1>
      <p>Prices include VAT where it applies. A machine-readable copy of this page is at <a href="/pricing.md">/pricing.md</a>.</p>
      <p className="notice">Purchases are not available on this site yet.</p>
      {list.map(({ product, html }) => (
        <section key={product.slug} className="card" aria-labelledby={`product-${product.slug}`}>
          <h2 id={`product-${product.slug}`}>{product.title}</h2>
          <p className="price">{formatPrice(product.price, product.currency)}</p>
          <p>{product.description}</p>
          {product.kind === 'offer' && (
            <p className="meta">
              Available from <time dateTime={product.starts}>{sessionDate.format(Date.parse(product.starts))} UTC</time> until{' '}
              <time dateTime={product.ends}>{sessionDate.format(Date.parse(product.ends))} UTC</time>.
            </p>
          )}
          {product.kind === 'training' && (
            <>
              <h3>Sessions</h3>
              <ul>
                {product.sessions.map((session) => (
                  <li key={session.id}>
                    <time dateTime={session.start}>{sessionDate.format(Date.parse(session.start))} UTC</time> · {session.seats} seats
                  </li>
                ))}
              </ul>
            </>
          )}
          <MarkdownHtml html={html} />
        </section>
      ))}
    </>
  );
}
