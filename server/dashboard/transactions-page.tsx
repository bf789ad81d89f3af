import type { Transaction } from '../store/transactions';
import type { DashboardText } from './i18n';
import { MAX_SEARCH_LENGTH } from '../domain/transaction-search';
import { renderPage } from './layout';
import { firstTransactionCurl } from './pages';
import type { Signed } from './sale-pages';
import { filtersQuery, type ParsedFilters, TX_STATUSES } from './transaction-filters';
import { Pager } from './list-parts';

// The transactions: the search and filters, a page of results (or how to make the first
// one), and the pager.

function Filters({ text, parsed }: { text: DashboardText; parsed: ParsedFilters }) {
  const { filters: f, ignored, backwards } = parsed;
  const { t } = text;
  return (
    <>
      <form method="get" action="/dashboard/transactions/" class="filters" aria-label={t('tx.filter')}>
        <div class="search">
          <label for="f-q">{t('tx.search')}</label>
          <input id="f-q" name="q" type="search" value={f.q ?? ''} maxLength={MAX_SEARCH_LENGTH} autocomplete="off" aria-describedby="f-q-hint" />
          <p id="f-q-hint" class="hint">{t('tx.searchHint')}</p>
        </div>
        <div>
          <label for="f-status">{t('tx.status')}</label>
          <select id="f-status" name="status">
            <option value="">{t('tx.any')}</option>
            {TX_STATUSES.map((s) => (
              <option key={s} value={s} selected={f.status === s}>
                {t(`tx.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-currency">{t('tx.currency')}</label>
          <input id="f-currency" name="currency" value={f.currency ?? ''} maxLength={3} size={4} autocomplete="off" />
        </div>
        <div>
          <label for="f-from">{t('tx.from')}</label>
          <input id="f-from" name="from" type="date" value={f.from ?? ''} />
        </div>
        <div>
          <label for="f-to">{t('tx.to')}</label>
          <input id="f-to" name="to" type="date" value={f.to ?? ''} />
        </div>
        {f.order_id && <input type="hidden" name="order_id" value={f.order_id} />}
        <button type="submit">{t('tx.apply')}</button>
      </form>
      {(ignored.length > 0 || backwards) && (
        <p class="notice error" role="status">
          {ignored.length > 0 && t('tx.ignored', { fields: ignored.map((name) => t(`tx.field.${name}`)).join(', ') })}
          {ignored.length > 0 && backwards && ' '}
          {backwards && t('tx.backwards')}
        </p>
      )}
    </>
  );
}

function Results({ text, items, baseUrl, publicKey }: { text: DashboardText; items: { row: Transaction }[]; baseUrl: string; publicKey: string | null }) {
  const { t } = text;
  return items.length === 0 ? (
    <section class="empty" aria-labelledby="tx-empty">
      <p id="tx-empty">{t('tx.none')}</p>
      <pre tabindex={0}>
        <code>{firstTransactionCurl(baseUrl, publicKey)}</code>
      </pre>
    </section>
  ) : (
    <div class="scroll" tabindex={0} role="region" aria-label={t('tx.title')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('tx.orderId')}</th>
            <th scope="col">{t('tx.status')}</th>
            <th scope="col">{t('tx.total')}</th>
            <th scope="col">{t('tx.created')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map(({ row }) => (
            <tr key={row.id}>
              <td>
                <a href={`/dashboard/transactions/${row.id}/`}>{row.order_id ?? row.id}</a>
              </td>
              <td>{t(`tx.status.${row.status}`)}</td>
              <td>{text.money(row.total_price, row.currency)}</td>
              <td>{text.dateTime(row.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function transactionsPage(
  p: Signed & { parsed: ParsedFilters; items: { row: Transaction }[]; count: number; pageSize: number; publicKey: string | null; baseUrl: string },
): string {
  const { text } = p;
  const { t } = text;
  const pages = Math.max(1, Math.ceil(p.count / p.pageSize));
  return renderPage(
    { text, session: p.session, title: t('tx.title'), active: 'transactions' },
    <>
      <Filters text={text} parsed={p.parsed} />
      <Results text={text} items={p.items} baseUrl={p.baseUrl} publicKey={p.publicKey} />
      <Pager text={text} page={p.parsed.filters.page} pages={pages} href={(n) => `/dashboard/transactions/${filtersQuery(p.parsed.filters, n)}`} />
    </>,
  );
}
