import { describe, expect, it } from 'vitest';
import { countOf } from '../../server/store/paging';

// A list's count read only when its page cannot tell it (store/paging.ts).

describe('countOf', () => {
  const counted = (n: number) => {
    const asked = { times: 0 };
    return { asked, count: async () => (asked.times++, n) };
  };

  it('a page that is not full ends the list: the count is the rows before it and on it, with no count read', async () => {
    for (const [page, shown, total] of [
      [1, 1, 1],
      [1, 19, 19],
      [3, 5, 45],
    ] as const) {
      const { asked, count } = counted(-1);
      expect(await countOf({ page, page_size: 20 }, shown, count)).toBe(total);
      expect(asked.times).toBe(0);
    }
  });

  it('an empty first page is an empty list', async () => {
    const { asked, count } = counted(-1);
    expect(await countOf({ page: 1, page_size: 20 }, 0, count)).toBe(0);
    expect(asked.times).toBe(0);
  });

  it('a full page, or an empty one past the first, reads the count (a string from PostgreSQL too)', async () => {
    const full = counted(57);
    expect(await countOf({ page: 2, page_size: 20 }, 20, full.count)).toBe(57);
    expect(full.asked.times).toBe(1);
    const past = counted(57);
    expect(await countOf({ page: 9, page_size: 20 }, 0, past.count)).toBe(57);
    expect(past.asked.times).toBe(1);
    expect(await countOf({ page: 1, page_size: 20 }, 20, async () => '20')).toBe(20);
  });
});
