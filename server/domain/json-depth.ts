/**
 * No JSON we accept nests deeper than a few levels: a request body, or the JSON text a
 * transaction's `extra` holds. Deeper (100 kB of `[` parses) would overflow the stack of any
 * recursive walk of it (a hash, a validator), so it is refused before one, by this walk
 * without recursion.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value has containers nested deeper than MAX_JSON_DEPTH. */
export function nestedTooDeep(value: unknown): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [v, depth] = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}
