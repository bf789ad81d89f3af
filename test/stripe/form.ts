// Stripe's request encoding: `application/x-www-form-urlencoded` bodies (and query strings)
// with bracket notation for nesting. `metadata[ref]=x` is an object, `expand[]=a&expand[]=b`
// and `expand[0]=a&expand[1]=b` are both lists (the official SDK sends the indexed form,
// Stripe's docs show the other), `created[gte]=…` is an object. Every value is a string:
// the parameter checks (params.ts) read integers and booleans out of them, as Stripe does.

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type Form = { [key: string]: FormValue };

/** `a[b][]` → ['a', 'b', '']: the name and its bracketed parts. */
function pathOf(name: string): string[] | null {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return null;
  const parts = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
  return [match[1]!, ...parts];
}

/** A container whose keys are all list positions (`''` or digits) becomes a list. */
function listsOf(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const entries = keys.map((k) => [k, listsOf(value[k]!)] as const);
  if (keys.length > 0 && keys.every((k) => /^(\d+|\[\]\d+)$/.test(k))) {
    return entries.sort(([a], [b]) => Number(a.replace('[]', '')) - Number(b.replace('[]', ''))).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

/**
 * Parses a form body or query string. A name Stripe could not read (`a]b`, a value that is
 * both a string and an object) is answered by the caller as an invalid request: `null`.
 */
export function parseForm(text: string): Form | null {
  const root: { [key: string]: FormValue } = {};
  let appended = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    const path = pathOf(name);
    if (!path) return null;
    let node: { [key: string]: FormValue } = root;
    for (let i = 0; i < path.length; i++) {
      // `[]` appends: a unique key that keeps the order of arrival.
      const key = path[i] === '' ? `[]${appended++}` : path[i]!;
      if (i === path.length - 1) {
        if (key in node) return null;
        node[key] = value;
        break;
      }
      const next = node[key] ?? {};
      if (typeof next === 'string' || Array.isArray(next)) return null;
      node[key] = next;
      node = next;
    }
  }
  return listsOf(root) as Form;
}

/** The same form in a canonical text, to compare two requests' parameters (idempotency.ts). */
export function canonical(value: FormValue | undefined): string {
  if (value === undefined || typeof value === 'string') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
    .join(',')}}`;
}
