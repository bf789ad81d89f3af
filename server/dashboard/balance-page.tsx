import { maskedIban } from '../../widget/fields/iban';
import type { PayoutOnItsWay } from '../store/balance-overview';
import type { PayoutSettings } from '../store/merchant-payouts';
import type { ProcessorPayoutShown } from '../store/processor-payouts';
import type { BalanceTransactionRow, MerchantPayoutRow, PayoutFileRow } from '../store/schema';
import type { BalanceFilters } from './balance-filters';
import { BalanceFilterForm, BalanceTransactions, LatestFiles, LatestPayouts, OnItsWay, ProcessorPayouts } from './balance-parts';
import type { DashboardKey, DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { type ActionNotice, Notice } from './list-parts';
import { PayoutAccountForm, type RefusedAccountForm } from './payout-account-form';
import type { Signed } from './sale-pages';

// /dashboard/balance/: the money the platform holds for the environment (available and
// pending per currency, "Pay out now" for owners, what is on its way and when, the fees of
// a period, the balance transactions, payouts and payout files), and apart from it, read
// only, the sales a processor of the merchant's own settles, which never enter the balance,
// and that processor's own payouts (no "Pay out now" there: the processor pays them out).
// Integer minor units throughout; only text.money formats them.

export interface BalanceView {
  balance: { currency: string; available: number; pending: number }[];
  settings: PayoutSettings;
  /** The signed-in member may pay out and change the bank account (an owner). */
  owner: boolean;
  /** An owner's second factor is on: the bank account form asks for its code. */
  secondFactor: boolean;
  /** The bank account form's refused post, shown again with what was wrong. */
  refusedAccount?: RefusedAccountForm;
  /** A new bank account holding the payouts until an owner confirms it, or `until`. */
  held: { last4: string; until: string } | null;
  becoming: { currency: string; day: string; net: number }[];
  onItsWay: PayoutOnItsWay[];
  /** Payouts go by SEPA file (PAYOUT_PROVIDER=sepa-file): a pending one waits for the next file. */
  byFile: boolean;
  fees: { currency: string; fee: number; count: number }[];
  filters: BalanceFilters;
  ignored: string[];
  transactions: { rows: BalanceTransactionRow[]; count: number; pages: number };
  payouts: MerchantPayoutRow[];
  /** Owners only: payout files are theirs. */
  files: PayoutFileRow[] | null;
  processor: { name: string; currency: string; count: number; captured: number; refunded: number }[];
  /** What the processors reported of those sales, in the currency each settled in. */
  processorFigures: { name: string; currency: string; count: number; amount: number; fee: number; net: number }[];
  /** The processors' own payouts, as the daily sweep last read them (none from Redsys, whose API gives none). */
  processorPayouts: ProcessorPayoutShown[];
  now: Date;
  notice?: ActionNotice;
}

function PayOutButton({ text, csrf, currency }: { text: DashboardText; csrf: string; currency: string }) {
  return (
    <form method="post" action="/dashboard/balance/pay-out/">
      <Csrf token={csrf} />
      <input type="hidden" name="currency" value={currency} />
      <button type="submit" aria-label={text.t('bal.payOutIn', { currency })}>
        {text.t('bal.payOut')}
      </button>
    </form>
  );
}

function BalanceNow({ text, csrf, v }: { text: DashboardText; csrf: string; v: BalanceView }) {
  const { t } = text;
  const canPayOut = v.owner && v.settings.schedule === 'manual';
  if (v.balance.length === 0) return <p class="empty">{t('bal.empty')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby="bal-now">
      <table data-testid="balance">
        <thead>
          <tr>
            <th scope="col">{t('tx.currency')}</th>
            <th scope="col">{t('bal.available')}</th>
            <th scope="col">{t('bal.pending')}</th>
            {canPayOut && <th scope="col">{t('bal.payOutColumn')}</th>}
          </tr>
        </thead>
        <tbody>
          {v.balance.map((b) => (
            <tr key={b.currency} data-currency={b.currency}>
              <th scope="row">{b.currency}</th>
              <td data-testid={`available-${b.currency}`}>{text.money(b.available, b.currency)}</td>
              <td data-testid={`pending-${b.currency}`}>{text.money(b.pending, b.currency)}</td>
              {canPayOut && <td>{b.available > 0 ? <PayOutButton text={text} csrf={csrf} currency={b.currency} /> : '—'}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Where payouts go and when: the bank account, the schedule, and what that means for "Pay out now". */
function PayoutTerms({ text, v }: { text: DashboardText; v: BalanceView }) {
  const { t } = text;
  const { iban, schedule } = v.settings;
  return (
    <p data-testid="payout-terms">
      {iban ? t('bal.terms', { iban: maskedIban(iban), schedule: t(`payout.schedule.${schedule}`) }) : t('bal.termsNoIban', { schedule: t(`payout.schedule.${schedule}`) })}{' '}
      {schedule !== 'manual' && t('bal.scheduled')}
      {schedule === 'manual' && !iban && v.owner && (
        <>
          {t('bal.needsIban')} <a href="#bal-account">{t('bal.account.title')}</a>
        </>
      )}
      {v.held && (
        <strong data-testid="payout-held" class="block">
          {t('bal.held', { last4: v.held.last4, until: text.dateTime(v.held.until) })}
        </strong>
      )}
    </p>
  );
}

function Becoming({ text, rows }: { text: DashboardText; rows: BalanceView['becoming'] }) {
  const { t } = text;
  if (rows.length === 0) return <p class="empty">{t('bal.nothingPending')}</p>;
  return (
    <ul data-testid="becoming-available">
      {rows.map((r) => (
        <li key={`${r.currency}-${r.day}`}>{t('bal.becomingLine', { amount: text.money(r.net, r.currency), day: r.day, zone: text.timeZone })}</li>
      ))}
    </ul>
  );
}

function Fees({ text, rows }: { text: DashboardText; rows: BalanceView['fees'] }) {
  const { t } = text;
  if (rows.length === 0) return <p class="empty">{t('bal.noFees')}</p>;
  return (
    <ul data-testid="fees">
      {rows.map((r) => (
        <li key={r.currency}>{text.plural('bal.feeLine', { amount: text.money(r.fee, r.currency), count: r.count })}</li>
      ))}
    </ul>
  );
}

/** Per processor and currency: its payments, then amounts in that currency (minor units). */
function ProcessorTable(p: { text: DashboardText; labelledBy: string; testId: string; columns: DashboardKey[]; rows: { name: string; currency: string; count: number; amounts: number[] }[] }) {
  const { t } = p.text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby={p.labelledBy}>
      <table data-testid={p.testId}>
        <thead>
          <tr>
            <th scope="col">{t('proc.type')}</th>
            <th scope="col">{t('tx.currency')}</th>
            <th scope="col">{t('bal.col.payments')}</th>
            {p.columns.map((c) => (
              <th scope="col">{t(c)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={`${r.name}-${r.currency}`}>
              <th scope="row">{r.name}</th>
              <td>{r.currency}</td>
              <td>{r.count}</td>
              {r.amounts.map((amount) => (
                <td>{p.text.money(amount, r.currency)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The volume and refunds of the sales a processor of the merchant's own settles. */
function ProcessorSettled({ text, rows }: { text: DashboardText; rows: BalanceView['processor'] }) {
  if (rows.length === 0) return <p class="empty">{text.t('bal.processorNone')}</p>;
  const amounts = rows.map((r) => ({ ...r, amounts: [r.captured, r.refunded] }));
  return <ProcessorTable text={text} labelledBy="bal-processor" testId="processor-settled" columns={['bal.col.volume', 'bal.col.refunded']} rows={amounts} />;
}

/** The processors' own amount, fee and net of the sales whose figures were read. */
function ProcessorFigures({ text, rows }: { text: DashboardText; rows: BalanceView['processorFigures'] }) {
  if (rows.length === 0) return <p class="empty">{text.t('bal.processorFiguresNone')}</p>;
  const amounts = rows.map((r) => ({ ...r, amounts: [r.amount, r.fee, r.net] }));
  const columns: DashboardKey[] = ['bal.col.amount', 'bal.col.processorFee', 'bal.col.processorNet'];
  return <ProcessorTable text={text} labelledBy="bal-processor-figures" testId="processor-figures" columns={columns} rows={amounts} />;
}

export function balancePage(p: Signed & { view: BalanceView; status?: number }): string {
  const { text, session, view: v } = p;
  const { t } = text;
  const period = { from: v.filters.from, to: v.filters.to };
  return renderPage(
    { text, session, title: t('bal.title'), active: 'balance' },
    <>
      <p>{t('bal.intro')}</p>
      <Notice notice={v.notice} />
      <h2 id="bal-now">{t('bal.now')}</h2>
      <BalanceNow text={text} csrf={session.csrf} v={v} />
      <PayoutTerms text={text} v={v} />
      <h3 id="bal-account">{t('bal.account.title')}</h3>
      {v.owner ? (
        <PayoutAccountForm text={text} csrf={session.csrf} email={session.email} settings={v.settings} secondFactor={v.secondFactor} refused={v.refusedAccount} />
      ) : (
        <p class="hint">{t('bal.account.ownersOnly')}</p>
      )}
      <h2>{t('bal.onItsWay')}</h2>
      <h3 id="bal-to-bank">{t('bal.toBank')}</h3>
      <OnItsWay text={text} payouts={v.onItsWay} byFile={v.byFile} />
      <h3>{t('bal.becoming')}</h3>
      <Becoming text={text} rows={v.becoming} />
      <h2>{t('bal.periodTitle', period)}</h2>
      <p class="hint">{t('bal.periodHint', { zone: text.timeZone })}</p>
      <BalanceFilterForm text={text} filters={v.filters} ignored={v.ignored} />
      <h3>{t('bal.fees')}</h3>
      <Fees text={text} rows={v.fees} />
      <h3 id="bal-transactions">{t('bal.transactions')}</h3>
      <BalanceTransactions text={text} {...v.transactions} filters={v.filters} now={v.now} />
      <h2>{t('payout.list')}</h2>
      <LatestPayouts text={text} rows={v.payouts} />
      {v.files && (
        <>
          <h2>{t('pf.title')}</h2>
          <LatestFiles text={text} rows={v.files} />
        </>
      )}
      <h2 id="bal-processor">{t('bal.processor')}</h2>
      <p>{t('bal.processorIntro')}</p>
      <ProcessorSettled text={text} rows={v.processor} />
      <h3 id="bal-processor-figures">{t('bal.processorFigures')}</h3>
      <p>{t('bal.processorFiguresIntro')}</p>
      <ProcessorFigures text={text} rows={v.processorFigures} />
      <h3 id="bal-processor-payouts">{t('bal.processorPayouts')}</h3>
      <p>{t('bal.processorPayoutsIntro')}</p>
      <ProcessorPayouts text={text} rows={v.processorPayouts} />
    </>,
  );
}

/** "Pay out now", asked once more: how much, to which account. */
export function payOutConfirmPage(p: Signed & { currency: string; amount: number; iban: string }): string {
  const { text, session } = p;
  const { t } = text;
  const amount = text.money(p.amount, p.currency);
  return renderPage(
    { text, session, title: t('bal.payOutTitle'), active: 'balance' },
    <>
      <p data-testid="pay-out-confirm">{t('bal.payOutConfirm', { amount, iban: maskedIban(p.iban) })}</p>
      <div class="row-actions">
        <form method="post" action="/dashboard/balance/pay-out/">
          <Csrf token={session.csrf} />
          <input type="hidden" name="currency" value={p.currency} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="primary">
            {t('bal.payOutSubmit', { amount })}
          </button>
        </form>
        <a href="/dashboard/balance/">{t('bal.back')}</a>
      </div>
    </>,
  );
}
