import { absoluteUrl } from '../runtime/site';
import { products, site } from '../content';
import { decimalPrice } from '../products/price';
import { formatMeeting } from '../products/when';

const kindLabel = { training: 'Training', bundle: 'Digital bundle', book: 'Book', offer: 'Special offer' } as const;

/** /pricing.md: the same products as the pricing page, as markdown. */
export function pricingMarkdown(): string {
  const lines = [
    `# Pricing: ${site().name}`,
    '',
    `Prices are in the ISO 4217 currency shown, VAT included where it applies. The same list as a web page: ${absoluteUrl('/pricing')}`,
    '',
  ];
  lines.push('| Product | Kind | Price | Currency |', '|---|---|---|---|');
  for (const product of products()) {
    lines.push(
      `| ${product.title.replace(/\|/g, '\\|')} | ${kindLabel[product.kind]} | ${decimalPrice(product.price, product.currency)} | ${product.currency} |`,
    );
  }
  for (const product of products()) {
    lines.push(
      '',
      `## ${product.title}`,
      '',
      `- Kind: ${kindLabel[product.kind]}`,
      `- Price: ${decimalPrice(product.price, product.currency)} ${product.currency}`,
      `- Slug: \`${product.slug}\``,
    );
    if (product.kind === 'training') {
      for (const session of product.sessions)
        lines.push(
          `- Session \`${session.id}\`, ${session.seats} seats: ${session.meetings.map((meeting) => `${formatMeeting(meeting)} (${meeting.start} to ${meeting.end})`).join('; ')}`,
        );
    }
    if (product.kind === 'offer') lines.push(`- Available from ${product.starts} until ${product.ends}`);
    lines.push('', product.description, '', product.body.trim());
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
