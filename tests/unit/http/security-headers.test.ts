import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cameOverHttps,
  contentSecurityPolicy,
  documentPolicy,
  hashSource,
  HSTS_VALUE,
  inlineHashes,
  resourcePolicy,
  securityHeaders,
} from '@/lib/http/security-headers';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

describe('inline hashes', () => {
  it('hashes the text of inline scripts and style elements as the browser does', () => {
    const html = '<!DOCTYPE html><html><head><script>var a = 1;</script><style>body{color:red}</style></head><body><script>self.x=[]</script></body></html>';
    expect(inlineHashes(html)).toEqual({ scripts: [sha('var a = 1;'), sha('self.x=[]')], styles: [sha('body{color:red}')] });
  });

  it('leaves out scripts with src and data blocks such as JSON-LD', () => {
    const html = [
      '<script src="/_next/static/chunks/a.js" async=""></script>',
      '<script type="application/ld+json">{"@type":"WebSite"}</script>',
      '<script type="application/json" id="data">{}</script>',
      '<script type="module">import "/m.js"</script>',
      '<script type="text/javascript">run()</script>',
      '<script id="_R_">boot()</script>',
    ].join('');
    expect(inlineHashes(html).scripts).toEqual([sha('import "/m.js"'), sha('run()'), sha('boot()')]);
  });

  it('reads attributes whose quoted values contain ">" and ignores data-src', () => {
    const html = '<script data-note="a > b" data-src="x">one()</script><script title=\'>\' src="/b.js"></script>';
    expect(inlineHashes(html).scripts).toEqual([sha('one()')]);
  });

  it('hashes an empty inline script, and each distinct text once', () => {
    expect(inlineHashes('<script></script><script>a()</script><script>a()</script>').scripts).toEqual([sha(''), sha('a()')]);
  });

  it('hashes UTF-8 bytes, with CRLF as the parser sees it (LF)', () => {
    expect(hashSource('é\r\nx')).toBe(sha('é\nx'));
    expect(inlineHashes('<SCRIPT>b()</SCRIPT >').scripts).toEqual([sha('b()')]);
  });
});

describe('Content-Security-Policy', () => {
  it('for a page: own origin and hashes, no plugins, no <base>, no framing, forms to the site and Stripe Checkout', () => {
    const policy = directives(documentPolicy({ scripts: [sha('x')], styles: [sha('y')] }));
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'", sha('x')]);
    expect(policy.get('style-src')).toEqual(["'self'", sha('y')]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'", 'https://checkout.stripe.com']);
    const all = [...policy.values()].flat();
    expect(all).not.toContain("'unsafe-inline'");
    expect(all).not.toContain("'unsafe-eval'");
    expect(all.some((value) => value.startsWith("'nonce-"))).toBe(false);
  });

  it('is built from the page body for HTML and is the locked-down policy for everything else', () => {
    const page = contentSecurityPolicy('text/html; charset=utf-8', Buffer.from('<script>go()</script>'));
    expect(directives(page).get('script-src')).toEqual(["'self'", sha('go()')]);
    expect(contentSecurityPolicy('application/json')).toBe(resourcePolicy('application/json'));
    const json = directives(resourcePolicy('application/json'));
    expect(json.get('default-src')).toEqual(["'none'"]);
    expect(json.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives(resourcePolicy('image/svg+xml')).get('style-src')).toEqual(["'unsafe-inline'"]);
    expect(json.has('style-src')).toBe(false);
  });
});

describe('fixed headers', () => {
  it('sends nosniff, a referrer policy, a permissions policy and no framing on every response', () => {
    const headers = securityHeaders({ https: false });
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
    expect(headers['Referrer-Policy']).toBe('strict-origin-when-cross-origin');
    expect(headers['Permissions-Policy']).toMatch(/camera=\(\).*geolocation=\(\).*microphone=\(\)/);
    expect(headers['X-Frame-Options']).toBe('DENY');
    expect(headers).not.toHaveProperty('Strict-Transport-Security');
  });

  it('adds Strict-Transport-Security over https only', () => {
    expect(securityHeaders({ https: true })['Strict-Transport-Security']).toBe(HSTS_VALUE);
    expect(HSTS_VALUE).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
  });

  it.each([
    [{ encrypted: true, siteUrl: 'http://localhost:3000', trustProxy: 0 }, true],
    [{ encrypted: false, siteUrl: 'https://example.com', trustProxy: 0 }, true],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 0 }, false],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 0, forwardedProto: 'https' }, false],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 1, forwardedProto: 'https' }, true],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 1, forwardedProto: 'http' }, false],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 1, forwardedProto: 'https, http' }, false],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 2, forwardedProto: 'https, http' }, true],
    [{ encrypted: false, siteUrl: 'http://localhost:3000', trustProxy: 1, forwardedProto: '' }, false],
  ])('came over https: %j → %s', (request, expected) => {
    expect(cameOverHttps(request)).toBe(expected);
  });
});
