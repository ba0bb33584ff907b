import { z } from 'zod';
import { fieldErrors, problem, type FieldError } from './problem';

/**
 * The query parameters of a read endpoint: a zod object whose each field is one parameter, read
 * from its single string value (absent: undefined). The route validates its query with it and
 * /openapi.json lists its fields as the operation's query parameters (lib/public-endpoints.ts),
 * so a parameter is declared once, with its description (`.describe()`), where it is read.
 */
export type QuerySchema = z.ZodObject<Record<string, z.ZodType<unknown, string | undefined>>>;

export type ParsedQuery<Schema extends QuerySchema> = { ok: true; query: z.output<Schema> } | { ok: false; errors: FieldError[] };

/** A query string read against its schema; a parameter given more than once is refused, as is any invalid value. */
export function parseQuery<Schema extends QuerySchema>(schema: Schema, params: URLSearchParams): ParsedQuery<Schema> {
  const names = Object.keys(schema.shape);
  const repeated = new Set(names.filter((name) => params.getAll(name).length > 1));
  const parsed = schema.safeParse(Object.fromEntries(names.map((name) => [name, repeated.has(name) ? undefined : (params.get(name) ?? undefined)])));
  const invalid = parsed.success ? [] : fieldErrors(parsed.error, names[0] ?? 'query');
  // In the schema's order: a repeated parameter is named once, for its repetition.
  const errors = names.flatMap((name) =>
    repeated.has(name) ? [{ path: name, message: 'must be given at most once' }] : invalid.filter((error) => error.path === name),
  );
  if (errors.length === 0 && parsed.success) return { ok: true, query: parsed.data };
  return { ok: false, errors: errors.length > 0 ? errors : invalid };
}

/** The 400 problem of an invalid query: its detail names the first bad parameter, `errors` each of them. */
export function invalidQuery(errors: FieldError[]): Response {
  const [first] = errors;
  return problem('invalid-query', first ? `${first.path} ${first.message}` : 'The query is invalid.', { errors });
}

/** The parameters of a query schema as OpenAPI 3.1 lists them: name, whether required, description and the value's JSON Schema. */
export function queryParameters(schema: QuerySchema): Record<string, unknown>[] {
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(generated.properties ?? {}).map(([name, { description, ...value }]) => ({
    name,
    in: 'query',
    required: generated.required?.includes(name) ?? false,
    ...(typeof description === 'string' ? { description } : {}),
    schema: value,
  }));
}
