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
export async function countAndPage<Row>(
  // The builder's table types vary by caller.
  query: SelectQueryBuilder<any, any, any>,
  page: Page,
  newestFirstBy = 'id',
): Promise<{ count: number; rows: Row[] }> {
  const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy(newestFirstBy, 'desc')
    .limit(page.page_size)
    .offset((page.page - 1) * page.page_size)
    .execute();
  return { count: Number(n), rows: rows as Row[] };
}
