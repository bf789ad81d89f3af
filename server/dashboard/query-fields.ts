import type { z } from 'zod';

// A GET form's filters as its query string carries them (so they work without script),
// each parsed on its own: a nonsense value is left out and named, the others still apply.
// Shared by the payments list, the Balance page and the API request log.

/** A parameter given twice counts once (its first value). */
export const single = (v: unknown) => (Array.isArray(v) ? v[0] : v);

/** The page number a list is asked for, 1 when none or nonsense. */
export const pageOf = (query: Record<string, unknown>, pageNo: z.ZodType<number>) => pageNo.catch(1).parse(single(query.page) ?? 1);

/** Each of `fields` the query gives, parsed; an empty one is a filter not used (the form sends every field). */
export function parseQueryFields<F extends Record<string, z.ZodType>>(query: Record<string, unknown>, fields: F): { values: { [K in keyof F]?: z.output<F[K]> }; ignored: (keyof F & string)[] } {
  const values: { [K in keyof F]?: z.output<F[K]> } = {};
  const ignored: (keyof F & string)[] = [];
  for (const name of Object.keys(fields) as (keyof F & string)[]) {
    const raw = single(query[name]);
    if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) continue;
    const parsed = fields[name]!.safeParse(raw);
    if (parsed.success) values[name] = parsed.data as z.output<F[typeof name]>;
    else ignored.push(name);
  }
  return { values, ignored };
}
