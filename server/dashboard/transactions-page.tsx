import type { Transaction } from '../store/transactions';
import type { DashboardText } from './i18n';
import { MAX_SEARCH_LENGTH } from '../domain/transaction-search';
import { renderPage } from './layout';
import { firstTransactionCurl } from './pages';
import { cardText, type Signed } from './sale-pages';
import { filtersQuery, type ParsedFilters, type TxFilters } from './transaction-filters';
import { SavedViews } from './saved-views-part';
import type { SavedViewRow } from '../store/schema';
import { paymentReference } from '../domain/payment-reference';
import { PAYMENT_STATUSES, paymentStatus } from '../domain/payment-status';
import type { PaymentFactsOf } from '../store/payment-list';
import { Pager } from './list-parts';
import { brandName, CARD_BRANDS } from '../../widget/fields/card';

// The payments (transactions): the search and filters, a page of results with each one's
// amount, status in words, customer, card, reference and date (or, with no filter, how to
// make the first one; with one, that nothing matches), and the pager.

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
            {PAYMENT_STATUSES.map((s) => (
              <option key={s} value={s} selected={f.status === s}>
                {t(`pay.status.${s}`)}
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
        <div>
          <label for="f-min">{t('tx.min')}</label>
          <input id="f-min" name="min" inputMode="decimal" value={f.min ?? ''} maxLength={20} size={8} autocomplete="off" />
        </div>
        <div>
          <label for="f-max">{t('tx.max')}</label>
          <input id="f-max" name="max" inputMode="decimal" value={f.max ?? ''} maxLength={20} size={8} autocomplete="off" />
        </div>
        <div>
          <label for="f-brand">{t('tx.brand')}</label>
          <select id="f-brand" name="brand">
            <option value="">{t('tx.anyBrand')}</option>
            {CARD_BRANDS.map((b) => (
              <option key={b} value={b} selected={f.brand === b}>
                {brandName(b)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-card">{t('tx.card')}</label>
          <input id="f-card" name="card" inputMode="numeric" value={f.card ?? ''} maxLength={4} size={5} autocomplete="off" />
        </div>
        <div class="check">
          <input id="f-all" name="all" type="checkbox" value="1" checked={f.all === '1'} />
          <label for="f-all">{t('pay.showTools')}</label>
        </div>
        {f.order_id && <input type="hidden" name="order_id" value={f.order_id} />}
        <button type="submit">{t('tx.apply')}</button>
      </form>
      {(ignored.length > 0 || backwards.length > 0) && (
        <p class="notice error" role="status">
          {[
            ...(ignored.length > 0 ? [t('tx.ignored', { fields: ignored.map((name) => t(`tx.field.${name}`)).join(', ') })] : []),
            ...backwards.map((range) => t(range === 'dates' ? 'tx.backwards' : 'tx.backwardsAmounts')),
          ].join(' ')}
        </p>
      )}
    </>
  );
}

/** A filter or a search was given: an empty list means no match, not a first run. */
const narrowed = (f: TxFilters) => FILTER_FIELDS.some((name) => f[name] !== undefined);
const FILTER_FIELDS = ['q', 'status', 'currency', 'from', 'to', 'min', 'max', 'brand', 'card', 'order_id'] as const;

function Empty({ text, parsed, baseUrl, publicKey }: { text: DashboardText; parsed: ParsedFilters; baseUrl: string; publicKey: string | null }) {
  const { t } = text;
  if (narrowed(parsed.filters)) {
    return (
      <section class="empty" aria-labelledby="tx-empty">
        <p id="tx-empty" role="status">
          {t('pay.noMatch')}
        </p>
        {parsed.filters.all === undefined && <p>{t('pay.noMatchHidden')}</p>}
      </section>
    );
  }
  return (
    <section class="empty" aria-labelledby="tx-empty">
      <p id="tx-empty">{t('tx.none')}</p>
      <pre tabindex={0}>
        <code>{firstTransactionCurl(baseUrl, publicKey)}</code>
      </pre>
    </section>
  );
}

function PaymentRow({ text, row, facts, now }: { text: DashboardText; row: Transaction; facts: PaymentFactsOf; now: Date }) {
  const { t } = text;
  const sale = facts.sales.get(row.id) ?? null;
  const status = paymentStatus({ tx: row, sale, lastAttempt: facts.lastAttempts.get(row.id) ?? null }, now);
  return (
    <tr data-payment={row.id}>
      <td>
        <a href={`/dashboard/transactions/${row.id}/`}>{text.money(sale?.amount ?? row.total_price, row.currency)}</a>
      </td>
      <td data-status={status}>{t(`pay.status.${status}`)}</td>
      <td>{row.customer_email ?? t('pay.noCustomer')}</td>
      <td>{sale?.card_last4 ? cardText(text, sale) : t('pay.noCustomer')}</td>
      <td>{sale ? <code>{paymentReference(sale.id)}</code> : t('pay.noCustomer')}</td>
      <td>{row.order_id && <a href={`/dashboard/transactions/${row.id}/`}>{row.order_id}</a>}</td>
      <td class="when">{text.dateTime(row.created_at)}</td>
    </tr>
  );
}

/** A table of payments, each linked to its page (the customer page's too). */
export function PaymentResults({ text, items, facts, now }: { text: DashboardText; items: { row: Transaction }[]; facts: PaymentFactsOf; now: Date }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('tx.title')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('pay.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
            <th scope="col">{t('pay.customer')}</th>
            <th scope="col">{t('pay.card')}</th>
            <th scope="col">{t('pay.reference')}</th>
            <th scope="col">{t('tx.orderId')}</th>
            <th scope="col">{t('pay.date')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map(({ row }) => (
            <PaymentRow key={row.id} text={text} row={row} facts={facts} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function transactionsPage(
  p: Signed & { parsed: ParsedFilters; items: { row: Transaction }[]; facts: PaymentFactsOf; views: SavedViewRow[]; now: Date; count: number; pageSize: number; publicKey: string | null; baseUrl: string },
): string {
  const { text } = p;
  const { t } = text;
  const pages = Math.max(1, Math.ceil(p.count / p.pageSize));
  return renderPage(
    { text, session: p.session, title: t('tx.title'), active: 'transactions' },
    <>
      <Filters text={text} parsed={p.parsed} />
      <SavedViews text={text} session={p.session} views={p.views} filters={p.parsed.filters} canSave={narrowed(p.parsed.filters) || p.parsed.filters.all !== undefined} />
      {p.items.length === 0 && p.count > 0 ? (
        <p class="empty" role="status">
          {t('tx.pastEnd', { page: p.parsed.filters.page, pages })}
        </p>
      ) : p.items.length === 0 ? (
        <Empty text={text} parsed={p.parsed} baseUrl={p.baseUrl} publicKey={p.publicKey} />
      ) : (
        <PaymentResults text={text} items={p.items} facts={p.facts} now={p.now} />
      )}
      <Pager text={text} page={p.parsed.filters.page} pages={pages} href={(n) => `/dashboard/transactions/${filtersQuery(p.parsed.filters, n)}`} />
    </>,
  );
}
