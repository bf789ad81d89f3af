import { describe, expect, it } from 'vitest';
import { inexactNumbers } from '../../server/http/json-numbers';

// The numbers of a JSON text that JSON.parse would round (more than 15 significant
// digits), found in the text with the paths field errors use; strings, keys and numbers
// that survive are left alone.

describe('inexactNumbers', () => {
  it.each([
    ['{"a":1.5,"b":[1,2,19.999999999999999],"c":{"d":0.9999999999999999999999999999}}', ['b.2', 'c.d']],
    ['{"a":[{"p":100.0000000000000001},{"p":1}],"z":1234567890123456}', ['a.0.p', 'z']],
    ['{"pi":3.14159265358979323, "rate": 7.0625}', ['pi']],
    ['12345678901234567', ['(body)']],
  ])('%s', (text, paths) => {
    expect(inexactNumbers(text)).toEqual(paths);
  });

  it('counts significant digits only: leading and trailing zeros, signs and exponents are not', () => {
    expect(inexactNumbers('[123456789012345, 0.000000000000000001, -1e21, 100000000000000000000, 1.500000000000000000]')).toEqual([]);
  });

  it('reads strings and keys as text, escapes included', () => {
    expect(inexactNumbers('{"k\\"19.999999999999999":"19.999999999999999","\\\\":[0.12345678901234567]}')).toEqual(['\\.0']);
  });

  it('reads a 10 MiB string (a document) without recursing', () => {
    expect(inexactNumbers(`{"data":"${'QUJD'.repeat(2_700_000)}","n":0.12345678901234567}`)).toEqual(['n']);
  });

  it('finds nothing in a text that is not JSON (the parser refuses it)', () => {
    expect(inexactNumbers('{"a":"unterminated')).toEqual([]);
  });
});
