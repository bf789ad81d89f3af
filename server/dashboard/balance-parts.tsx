import type { ComponentChildren } from 'preact';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import type { PayoutOnItsWay } from '../store/balance-overview';
import type { ProcessorPayoutShown } from '../store/processor-payouts';
import type { BalanceTransactionRow, MerchantPayoutRow, PayoutFileRow } from '../store/schema';
import { type BalanceFilters, balanceQuery } from './balance-filters';
import type { DashboardText } from './i18n';
import { Pager } from './list-parts';
import { payoutFileUrl } from './payout-file-pages';

// The Balance page's lists (balance-page.tsx): its balance transactions with their filters,
// the payouts on their way, the latest payouts and payout files with their state in words,
// and the payouts a processor of the merchant's own made, as the daily sweep last read them.

const payoutUrl = (id: string) => `/dashboard/payouts/${id}/`;

/** A payout's state in words; a failed or returned one stands out, as on the payouts page. */
function PayoutState({ text, row }: { text: DashboardText; row: Pick<MerchantPayoutRow, 'status'> }) {
  const words = text.t(`payout.status.${row.status}`);
  return row.status === 'failed' || row.status === 'returned' ? <strong class="overdue">{words}</strong> : <>{words}</>;
}

/** A table in its own scrolling region, named by its heading. */
function Scroll({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby={labelledBy}>
      {children}
    </div>
  );
}

/** When a payout on its way should reach the bank: its file's execution date, or what it waits for. */
function expected(text: DashboardText, p: PayoutOnItsWay, byFile: boolean): string {
  if (p.execution_date) return text.t('bal.expected.file', { date: p.execution_date });
  return text.t(byFile ? 'bal.expected.nextFile' : 'bal.expected.provider');
}

export function OnItsWay({ text, payouts, byFile }: { text: DashboardText; payouts: PayoutOnItsWay[]; byFile: boolean }) {
  const { t } = text;
  if (payouts.length === 0) return <p class="empty">{t('bal.noneOnItsWay')}</p>;
  return (
    <Scroll labelledBy="bal-to-bank">
      <table data-testid="on-its-way">
        <thead>
          <tr>
            <th scope="col">{t('payout.created')}</th>
            <th scope="col">{t('payout.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
            <th scope="col">{t('bal.expected')}</th>
          </tr>
        </thead>
        <tbody>
          {payouts.map((p) => (
            <tr key={p.id} data-payout={p.id}>
              <td>
                <a href={payoutUrl(p.id)}>{text.dateTime(p.created_at)}</a>
              </td>
              <td>{text.money(p.amount, p.currency)}</td>
              <td>
                <PayoutState text={text} row={p} />
              </td>
              <td>{expected(text, p, byFile)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

export function BalanceFilterForm({ text, filters, ignored }: { text: DashboardText; filters: BalanceFilters; ignored: string[] }) {
  const { t } = text;
  return (
    <>
      <form method="get" action="/dashboard/balance/" class="filters" aria-label={t('bal.filter')}>
        <div>
          <label for="b-type">{t('bal.col.type')}</label>
          <select id="b-type" name="type">
            <option value="">{t('tx.any')}</option>
            {BALANCE_TRANSACTION_TYPES.map((type) => (
              <option key={type} value={type} selected={filters.type === type}>
                {t(`bal.type.${type}`)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="b-currency">{t('tx.currency')}</label>
          <input id="b-currency" name="currency" value={filters.currency ?? ''} maxLength={3} size={4} autocomplete="off" />
        </div>
        <div>
          <label for="b-from">{t('tx.from')}</label>
          <input id="b-from" name="from" type="date" value={filters.from} />
        </div>
        <div>
          <label for="b-to">{t('tx.to')}</label>
          <input id="b-to" name="to" type="date" value={filters.to} />
        </div>
        <button type="submit">{t('tx.apply')}</button>
      </form>
      {ignored.length > 0 && (
        <p class="notice error" role="status">
          {t('tx.ignored', { fields: ignored.map((name) => t(`bal.field.${name as 'type'}`)).join(', ') })}
        </p>
      )}
    </>
  );
}

function TransactionRow({ text, row, now }: { text: DashboardText; row: BalanceTransactionRow; now: Date }) {
  const { t } = text;
  const available = row.available_on <= now.toISOString();
  return (
    <tr data-balance-transaction={row.id}>
      <td>{text.dateTime(row.created_at)}</td>
      <td>{row.payout_id && row.type.startsWith('payout') ? <a href={payoutUrl(row.payout_id)}>{t(`bal.type.${row.type}`)}</a> : t(`bal.type.${row.type}`)}</td>
      <td>{text.money(row.amount, row.currency)}</td>
      <td>{text.money(row.fee, row.currency)}</td>
      <td>{text.money(row.net, row.currency)}</td>
      <td>{available ? t('bal.status.available') : t('bal.status.pendingUntil', { date: text.dateTime(row.available_on) })}</td>
    </tr>
  );
}

export function BalanceTransactions(p: { text: DashboardText; rows: BalanceTransactionRow[]; count: number; pages: number; filters: BalanceFilters; now: Date }) {
  const { text, filters } = p;
  const { t } = text;
  return (
    <>
      <p>
        <a href={`/dashboard/export/csv${balanceQuery(filters, { kind: 'balance_transactions' })}`} download data-testid="balance-csv">
          {t('bal.export')}
        </a>
      </p>
      {p.rows.length === 0 ? (
        <p class="empty">{t('bal.noTransactions')}</p>
      ) : (
        <Scroll labelledBy="bal-transactions">
          <table data-testid="balance-transactions">
            <thead>
              <tr>
                <th scope="col">{t('bal.col.created')}</th>
                <th scope="col">{t('bal.col.type')}</th>
                <th scope="col">{t('payout.amount')}</th>
                <th scope="col">{t('bal.col.fee')}</th>
                <th scope="col">{t('bal.col.net')}</th>
                <th scope="col">{t('tx.status')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((row) => (
                <TransactionRow key={row.id} text={text} row={row} now={p.now} />
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Pager text={text} page={filters.page} pages={p.pages} href={(n) => `/dashboard/balance/${balanceQuery(filters, { page: String(n) })}`} />
    </>
  );
}

export function LatestPayouts({ text, rows }: { text: DashboardText; rows: MerchantPayoutRow[] }) {
  const { t } = text;
  return (
    <>
      {rows.length === 0 ? (
        <p class="empty">{t('payout.none')}</p>
      ) : (
        <ul data-testid="latest-payouts">
          {rows.map((r) => (
            <li key={r.id}>
              <a href={payoutUrl(r.id)}>{t('bal.payoutLine', { amount: text.money(r.amount, r.currency), date: text.dateTime(r.created_at) })}</a>
              {': '}
              <PayoutState text={text} row={r} />
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href="/dashboard/payouts/">{t('bal.allPayouts')}</a>
      </p>
    </>
  );
}

export function LatestFiles({ text, rows }: { text: DashboardText; rows: PayoutFileRow[] }) {
  const { t } = text;
  return (
    <>
      {rows.length === 0 ? (
        <p class="empty">{t('bal.noFiles')}</p>
      ) : (
        <ul data-testid="latest-files">
          {rows.map((f) => (
            <li key={f.id}>
              <a href={payoutFileUrl(f.id)}>{t('bal.fileLine', { amount: text.money(f.control_sum, f.currency), n: f.payout_count, date: text.dateTime(f.created_at) })}</a>
              {': '}
              {t(`pf.state.${f.state}`)}
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href="/dashboard/payout-files/">{t('bal.allFiles')}</a>
      </p>
    </>
  );
}

/** A processor's payout's state in words; a failed one stands out, with the processor's reason. */
function ProcessorPayoutState({ text, row }: { text: DashboardText; row: ProcessorPayoutShown }) {
  const words = text.t(`bal.processorPayout.status.${row.status}`);
  if (row.status !== 'failed') return <>{words}</>;
  return <strong class="overdue">{row.failure_message ? text.t('bal.processorPayoutFailed', { status: words, why: row.failure_message }) : words}</strong>;
}

/** The processors' own payouts to the merchant's bank, latest arrival first: read-only, no action. */
export function ProcessorPayouts({ text, rows }: { text: DashboardText; rows: ProcessorPayoutShown[] }) {
  const { t } = text;
  if (rows.length === 0) return <p class="empty">{t('bal.processorPayoutsNone')}</p>;
  return (
    <Scroll labelledBy="bal-processor-payouts">
      <table data-testid="processor-payouts">
        <thead>
          <tr>
            <th scope="col">{t('proc.type')}</th>
            <th scope="col">{t('bal.col.arrival')}</th>
            <th scope="col">{t('payout.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-processor-payout={r.payout}>
              <th scope="row">{t(`proc.name.${r.type}`)}</th>
              <td>{text.dateTime(r.arrival_date)}</td>
              <td>{text.money(r.amount, r.currency)}</td>
              <td>
                <ProcessorPayoutState text={text} row={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}
