import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../../server/domain/json-depth';
import { jsonStringsAreText } from '../../server/schemas/fields';

const nested = (levels: number, inner: unknown = 1): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

describe('JSON nesting', () => {
  it('takes containers up to MAX_JSON_DEPTH levels and refuses one more', () => {
    expect(nestedTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestedTooDeep('x')).toBe(false);
    expect(nestedTooDeep(null)).toBe(false);
  });

  it('walks a value nested far deeper than a stack would allow, both checks alike', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}"ok"${']'.repeat(100_000)}`);
    expect(nestedTooDeep(deep)).toBe(true);
    expect(jsonStringsAreText(deep)).toBe(true);
    expect(jsonStringsAreText(JSON.parse(`${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`))).toBe(false);
    expect(jsonStringsAreText({ ok: [{ 'key\u0001': 1 }] })).toBe(false);
  });
});
