import type { SelectQueryBuilder } from 'kysely';

export interface Page {
  page: number;
  page_size: number;
}

/**
 * Count of the filtered rows and one page of them, newest first: by id (UUIDv7 ids sort by
 * time), or by a column that numbers the rows when ids made in one millisecond must keep
 * their order too.
 */
/**
 * How many rows the filters match, given the page read first: a page that is not full
 * ends the list, so only a full page (or an empty one past the first) needs `count` read.
 * Most lists a merchant's code reads (a transaction's sales, a filter by order id) fit on
 * one page and cost one query.
 */
export async function countOf(page: Page, shown: number, count: () => Promise<number | string>): Promise<number> {
  if (shown > 0 && shown < page.page_size) return (page.page - 1) * page.page_size + shown;
  if (shown === 0 && page.page === 1) return 0;
  return Number(await count());
}

export async function countAndPage<Row>(
  // The builder's table types vary by caller.
  query: SelectQueryBuilder<any, any, any>,
  page: Page,
  newestFirstBy = 'id',
): Promise<{ count: number; rows: Row[] }> {
  const rows = await query
    .selectAll()
    .orderBy(newestFirstBy, 'desc')
    .limit(page.page_size)
    .offset((page.page - 1) * page.page_size)
    .execute();
  const count = await countOf(page, rows.length, async () => (await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { count, rows: rows as Row[] };
}
