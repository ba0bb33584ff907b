import { describe, expect, it } from 'vitest';
import { declaredCharset, isFormPost, mediaType, multipartFields, parseBody, withQueryFields } from '@/lib/http/form-body';

const bytes = (text: string) => new TextEncoder().encode(text);
const post = (headers: Record<string, string>, url = 'http://localhost/api/x') => new Request(url, { method: 'POST', headers });

describe('mediaType, isFormPost and declaredCharset', () => {
  it('read the Content-Type without its parameters, lowercased', () => {
    const request = post({ 'Content-Type': 'Application/X-WWW-Form-Urlencoded; Charset="UTF-8"' });
    expect(mediaType(request)).toBe('application/x-www-form-urlencoded');
    expect(isFormPost(request)).toBe(true);
    expect(declaredCharset(request)).toBe('utf-8');
  });

  it('find nothing where nothing was sent', () => {
    const request = post({});
    expect(mediaType(request)).toBeUndefined();
    expect(isFormPost(request)).toBe(false);
    expect(declaredCharset(request)).toBeUndefined();
  });
});

describe('parseBody', () => {
  it('reads urlencoded fields, skipping empty ones and keeping a repeated one as a list', () => {
    expect(parseBody(bytes('email=a%40example.com&name=&tag=x&tag=y'), 'application/x-www-form-urlencoded')).toEqual({
      ok: true,
      value: { email: 'a@example.com', tag: ['x', 'y'] },
    });
  });

  it('reads a JSON object, and refuses other JSON, broken JSON and bytes that are not UTF-8', () => {
    expect(parseBody(bytes('{"email":"a@example.com"}'), 'application/json')).toEqual({ ok: true, value: { email: 'a@example.com' } });
    expect(parseBody(bytes('[1]'), 'application/json')).toEqual({ ok: false, detail: 'The JSON body must be an object.' });
    expect(parseBody(bytes('{"email":'), 'application/json')).toEqual({ ok: false, detail: 'The body is not valid JSON.' });
    expect(parseBody(new Uint8Array([0x7b, 0xff, 0x7d]), 'application/json')).toEqual({ ok: false, detail: 'The body is not valid UTF-8.' });
  });
});

describe('multipartFields', () => {
  it('reads text fields by the urlencoded rules and refuses a file', async () => {
    const form = new FormData();
    form.append('token', 'abc');
    form.append('empty', '');
    const encoded = new Request('http://localhost/', { method: 'POST', body: form });
    const type = encoded.headers.get('content-type') ?? '';
    expect(await multipartFields(new Uint8Array(await encoded.arrayBuffer()), type)).toEqual({ ok: true, value: { token: 'abc' } });

    const withFile = new FormData();
    withFile.append('upload', new Blob(['data']), 'a.txt');
    const file = new Request('http://localhost/', { method: 'POST', body: withFile });
    expect(await multipartFields(new Uint8Array(await file.arrayBuffer()), file.headers.get('content-type') ?? '')).toEqual({
      ok: false,
      detail: 'The field upload is a file; only text fields are accepted.',
    });
    expect(await multipartFields(bytes('not multipart'), 'multipart/form-data; boundary=x')).toEqual({
      ok: false,
      detail: 'The multipart body cannot be parsed.',
    });
  });
});

describe('withQueryFields', () => {
  it('adds only the named query parameters, and one sent in both places becomes a list', () => {
    const request = post({}, 'http://localhost/api/x?token=q&other=ignored');
    expect(withQueryFields({}, request, ['token'])).toEqual({ token: 'q' });
    expect(withQueryFields({ token: 'b' }, request, ['token'])).toEqual({ token: ['b', 'q'] });
    expect(withQueryFields({ a: 1 }, request, [])).toEqual({ a: 1 });
  });
});
