/*
 * Reading a write route's body into fields, in the forms the site's forms and programs send:
 * JSON (an object), urlencoded, and (where a route allows it) multipart text fields. Pure
 * functions of the request's bytes and headers; the write handler (lib/write-routes/front-door.ts)
 * decides what to do with the outcome.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false; detail: string };

/** The request's media type, lowercased, without parameters. */
export function mediaType(request: Request): string | undefined {
  return request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** A post of an HTML form made without JavaScript. */
export function isFormPost(request: Request): boolean {
  return mediaType(request) === 'application/x-www-form-urlencoded';
}

/** The charset the Content-Type names, lowercased, if any; a body must be UTF-8. */
export function declaredCharset(request: Request): string | undefined {
  return /charset=([^;]+)/i
    .exec(request.headers.get('content-type') ?? '')?.[1]
    ?.trim()
    .replace(/"/g, '')
    .toLowerCase();
}

/** Adds one field's value; an empty field counts as not sent, a repeated one becomes a list (and fails validation). */
function addField(fields: Record<string, unknown>, key: string, value: string): void {
  if (value === '') return;
  const existing = fields[key];
  fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
}

/** A multipart/form-data body's text fields, by the same rules as a urlencoded one; a file is refused. */
export async function multipartFields(bytes: Uint8Array, contentType: string): Promise<Parsed> {
  let data: FormData;
  try {
    data = await new Response(bytes as BodyInit, { headers: { 'Content-Type': contentType } }).formData();
  } catch {
    return { ok: false, detail: 'The multipart body cannot be parsed.' };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of data) {
    if (typeof value !== 'string') return { ok: false, detail: `The field ${key} is a file; only text fields are accepted.` };
    addField(fields, key, value);
  }
  return { ok: true, value: fields };
}

/** Adds the allowed query parameters to the body's fields; a field sent in both places fails validation as a list. */
export function withQueryFields(value: unknown, request: Request, names: readonly string[]): unknown {
  if (names.length === 0 || typeof value !== 'object' || value === null) return value;
  const fields = { ...(value as Record<string, unknown>) };
  const query = new URL(request.url).searchParams;
  for (const name of names) {
    const given = query.getAll(name).filter((entry) => entry !== '');
    if (given.length === 0) continue;
    const existing = fields[name];
    const all = [...(existing === undefined ? [] : [existing]), ...given];
    fields[name] = all.length === 1 ? all[0] : all;
  }
  return fields;
}

/** A UTF-8 body of `type` (urlencoded or JSON) as fields: a JSON body must be an object. */
export function parseBody(bytes: Uint8Array, type: string): Parsed {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, detail: 'The body is not valid UTF-8.' };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(text)) addField(fields, key, value);
    return { ok: true, value: fields };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, detail: 'The JSON body must be an object.' };
    return { ok: true, value };
  } catch {
    return { ok: false, detail: 'The body is not valid JSON.' };
  }
}
