import type { ComponentChildren } from 'preact';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { type ActionNotice, Notice, Pager } from './list-parts';
import type { Signed } from './sale-pages';

// A list filtered by status, as the stored cards' and the subscriptions' pages show theirs:
// the last action's notice, the status filter, the table (or a line saying there is none)
// and the pager, each page link keeping the filter.

export interface StatusListInput<R> extends Signed {
  rows: R[];
  status: string | undefined;
  page: number;
  pages: number;
  notice?: ActionNotice;
}

interface StatusList<R, S extends string = string> {
  /** Its dashboard section, also its path: /dashboard/{section}/. */
  section: 'authorizations' | 'subscriptions';
  title: string;
  /** What the filter form is called, for screen readers. */
  filterLabel: string;
  /** The line shown when no row matches. */
  none: string;
  statuses: readonly S[];
  statusName: (status: S) => string;
  headings: string[];
  row: (row: R) => ComponentChildren;
}

function StatusFilter<S extends string>({ text, list, status }: { text: DashboardText; list: Pick<StatusList<unknown, S>, 'section' | 'filterLabel' | 'statuses' | 'statusName'>; status: string | undefined }) {
  const { t } = text;
  const id = `${list.section}-status`;
  return (
    <form method="get" action={`/dashboard/${list.section}/`} class="filters" aria-label={list.filterLabel}>
      <div>
        <label for={id}>{t('tx.status')}</label>
        <select id={id} name="status">
          <option value="">{t('tx.any')}</option>
          {list.statuses.map((s) => (
            <option key={s} value={s} selected={s === status}>
              {list.statusName(s)}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}

export function statusListPage<R, S extends string>(p: StatusListInput<R>, list: StatusList<R, S>): string {
  const { text } = p;
  const query = (page: number) => `?${new URLSearchParams({ ...(p.status ? { status: p.status } : {}), page: String(page) })}`;
  return renderPage(
    { text, session: p.session, title: list.title, active: list.section },
    <>
      <Notice notice={p.notice} />
      <StatusFilter text={text} list={list} status={p.status} />
      {p.rows.length === 0 ? (
        <p class="empty">{list.none}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={list.title}>
          <table>
            <thead>
              <tr>
                {list.headings.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{p.rows.map(list.row)}</tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `/dashboard/${list.section}/${query(n)}`} />
    </>,
  );
}
