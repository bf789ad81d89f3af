/** The envelope of every list of the API. */
export interface Page<T> {
  /** How many objects match, on all pages. */
  count: number;
  items_per_page: number;
  /** The next page's absolute URL, with the same filters; null on the last page. */
  next: string | null;
  previous: string | null;
  results: T[];
}

type Query = Record<string, unknown>;

/**
 * A list call: iterate it with `for await` for every object of every page, in the API's
 * order (newest first), fetching each page when the previous one is used up; or take its
 * `pages()`, or only its `firstPage()` (with `count`). Nothing is fetched until then, and
 * each iteration starts again from the first page.
 *
 * The pages are numbered: objects created while you iterate push older ones down, so one
 * may appear twice across a page boundary; filter with `created` ranges (events) or stop
 * at the first object you already have.
 */
export class PageIterator<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (query: Query) => Promise<P>,
    private readonly query: Query = {},
  ) {}

  /** The first page (the one `page` in the query names, if it does). */
  firstPage(): Promise<P> {
    return this.fetchPage(this.query);
  }

  /** Every page in turn, following each page's `next`. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let query = this.query;
    for (;;) {
      const page = await this.fetchPage(query);
      yield page;
      if (!page.next) return;
      // `next` keeps the filters; only its query is taken, sent to this client's address.
      query = Object.fromEntries(new URL(page.next).searchParams);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.results;
  }

  /** Up to `limit` objects (all of them by default) in one array. */
  async toArray(limit = Infinity): Promise<T[]> {
    const all: T[] = [];
    if (limit <= 0) return all;
    for await (const item of this) {
      all.push(item);
      if (all.length >= limit) break;
    }
    return all;
  }
}
