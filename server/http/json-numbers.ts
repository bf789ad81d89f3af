// Numbers in a JSON text that a JavaScript number cannot carry as written: more than 15
// significant digits. JSON.parse rounds them to the nearest double before any validation
// sees them (19.999999999999999 reads as 20, 0.9999999999999999999 as 1), so a price or
// an amount would be taken otherwise than it was written. They are found in the text.

/** A double holds every decimal of up to 15 significant digits exactly (as its shortest text). */
const MAX_DIGITS = 15;

type Container = { kind: 'object'; key: string | null } | { kind: 'array'; index: number };

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A number of more than 15 significant digits has at least 16 digits and dots in a row: a text without such a run has none. */
const LONG_RUN = /[\d.]{16}/;

/** Where the string opening at `start` ends (after its quote), or -1; a loop, as a regular expression would recurse over a 10 MiB document. */
function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let escapes = 0;
    while (text[quote - 1 - escapes] === '\\') escapes++;
    if (escapes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function significantDigits(token: string): number {
  const mantissa = token.replace(/^-/, '').split(/[eE]/)[0]!.replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * The paths (keys and indexes, as field errors name them: `products.0.product.price`) of
 * the numbers of `text` with more than 15 significant digits; none for a text that is
 * not JSON (the parser refuses it).
 */
export function inexactNumbers(text: string): string[] {
  // Most bodies have no such run: the whole text is not walked for them (every API request).
  if (!LONG_RUN.test(text)) return [];
  const found: string[] = [];
  const stack: Container[] = [];
  const path = () => stack.map((c) => (c.kind === 'object' ? c.key : String(c.index))).join('.');
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const top = stack[stack.length - 1];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? { kind: 'object', key: null } : { kind: 'array', index: 0 });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      if (top?.kind === 'array') top.index++;
      else if (top) top.key = null;
      i++;
    } else if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return [];
      // An object's string before its colon is a key.
      if (top?.kind === 'object' && top.key === null) top.key = JSON.parse(text.slice(i, end)) as string;
      i = end;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)?.[0];
      if (number === undefined) return [];
      if (significantDigits(number) > MAX_DIGITS) found.push(path() || '(body)');
      i += number.length;
    } else {
      i++;
    }
  }
  return found;
}
