import { describe, expect, it } from 'vitest';
import { cutText } from '../../server/domain/text-cut';

describe('cutText', () => {
  it('keeps a text up to the limit whole', () => {
    expect(cutText('answer 500', 10)).toBe('answer 500');
    expect(cutText('', 3)).toBe('');
  });
  it('cuts a longer one at the limit and says so', () => {
    expect(cutText('answer 500', 6)).toBe('answer…');
  });
  it('counts characters, never cutting one in half', () => {
    expect(cutText('😀😀😀', 2)).toBe('😀😀…');
    expect(cutText('😀😀', 2)).toBe('😀😀');
  });
});
