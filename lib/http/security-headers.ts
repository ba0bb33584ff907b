import { createHash } from 'node:crypto';

/**
 * Security headers of every response, and the Content-Security-Policy of HTML
 * pages built from the page itself.
 *
 * Pages are prerendered and served from memory by lectern's server, so the
 * policy cannot carry a per-request nonce (a nonce would force every page to
 * render per request). Instead it lists the SHA-256 hash of each inline
 * `<script>` and `<style>` element of the page: computed once, when the server
 * first captures the page, and valid for every later copy of the same bytes.
 */

/** Where a form post may end up: our own routes, and the 303 from a checkout route to Stripe Checkout. */
export const FORM_TARGETS = ["'self'", 'https://checkout.stripe.com'];

/** Two years, subdomains included: the value browsers' preload lists ask for. */
export const HSTS_VALUE = 'max-age=63072000; includeSubDomains';

/** Powerful features no page of the site uses, turned off for the page and anything it embeds. */
export const PERMISSIONS_POLICY = ['accelerometer', 'camera', 'geolocation', 'gyroscope', 'magnetometer', 'microphone', 'payment', 'usb']
  .map((feature) => `${feature}=()`)
  .join(', ');

/** Headers every response carries, whatever its type. */
export function securityHeaders(options: { https: boolean }): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
    // frame-ancestors in the CSP says the same to current browsers; this is for the others.
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(options.https ? { 'Strict-Transport-Security': HSTS_VALUE } : {}),
  };
}

export type InlineHashes = { scripts: string[]; styles: string[] };

const ATTRIBUTES = String.raw`((?:[^>"']|"[^"]*"|'[^']*')*)`;
const SCRIPT = new RegExp(String.raw`<script\b${ATTRIBUTES}>([\s\S]*?)</script[\s/>]`, 'gi');
const STYLE = new RegExp(String.raw`<style\b${ATTRIBUTES}>([\s\S]*?)</style[\s/>]`, 'gi');

/** The value of an attribute in a start tag's attribute text; `''` when present without a value. */
function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(String.raw`(?:^|\s)${name}(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>\x60]+))?(?=\s|/|$)`, 'i').exec(attributes);
  if (!match) return undefined;
  const value = match[1] ?? '';
  return value.startsWith('"') || value.startsWith("'") ? value.slice(1, -1) : value;
}

/** HTML's JavaScript MIME type essences, `module`, or no type at all: the script runs. Anything else is a data block. */
function isExecutable(type: string | undefined): boolean {
  if (type === undefined) return true;
  const essence = type.trim().toLowerCase();
  return essence === '' || essence === 'module' || /^(?:application|text)\/(?:x-)?(?:java|ecma)script$|^text\/(?:jscript|livescript)$/.test(essence);
}

/** A CSP hash source for an inline element's text (the parser turns CRLF and CR into LF before the browser hashes). */
export function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text.replace(/\r\n?/g, '\n'), 'utf8').digest('base64')}'`;
}

/**
 * Hash sources of the inline scripts that run (data blocks such as JSON-LD and
 * scripts with `src` are left out) and of the inline style elements of a page.
 */
export function inlineHashes(html: string): InlineHashes {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  for (const [, attributes = '', text = ''] of html.matchAll(SCRIPT)) {
    if (attribute(attributes, 'src') !== undefined || !isExecutable(attribute(attributes, 'type'))) continue;
    scripts.add(hashSource(text));
  }
  for (const [, , text = ''] of html.matchAll(STYLE)) styles.add(hashSource(text));
  return { scripts: [...scripts], styles: [...styles] };
}

/**
 * The policy of an HTML page: scripts, styles, images, fonts and fetches from
 * the site itself plus the page's own inline elements by hash; no plugins, no
 * `<base>`, no framing; forms post to the site (and may be redirected to checkout).
 */
export function documentPolicy(hashes: InlineHashes = { scripts: [], styles: [] }): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...hashes.scripts].join(' '),
    ["style-src 'self'", ...hashes.styles].join(' '),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${FORM_TARGETS.join(' ')}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of everything that is not an HTML page (JSON, markdown, feeds,
 * images): nothing may load, nothing may frame it. An SVG opened on its own may
 * still use the styles it carries.
 */
export function resourcePolicy(contentType: string): string {
  const svg = /^image\/svg\+xml\b/i.test(contentType.trim());
  return [
    "default-src 'none'",
    ...(svg ? ["style-src 'unsafe-inline'", 'img-src data:'] : []),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function isHtml(contentType: string): boolean {
  return /^text\/html\b/i.test(contentType.trim());
}

/** The policy for a response with this content type and, for HTML, this body. */
export function contentSecurityPolicy(contentType: string, body?: Buffer | string): string {
  if (!isHtml(contentType)) return resourcePolicy(contentType);
  return documentPolicy(body === undefined ? undefined : inlineHashes(typeof body === 'string' ? body : body.toString('utf8')));
}

/**
 * Whether a request reached the site over https: a TLS socket, a public URL
 * that is https (a TLS-terminating proxy in front), or, with `trustProxy` hops
 * configured, an `X-Forwarded-Proto` of https as the outermost trusted proxy saw it.
 */
export function cameOverHttps(options: { encrypted: boolean; siteUrl: string; trustProxy: number; forwardedProto?: string | string[] }): boolean {
  if (options.encrypted || options.siteUrl.startsWith('https:')) return true;
  if (options.trustProxy <= 0 || options.forwardedProto === undefined) return false;
  const protos = [options.forwardedProto]
    .flat()
    .flatMap((value) => value.split(','))
    .map((value) => value.trim().toLowerCase())
    .filter(Boolean);
  if (protos.length === 0) return false;
  return protos[Math.max(0, protos.length - options.trustProxy)] === 'https';
}
