import { paymentReference } from '../domain/payment-reference';
import { paymentStatus } from '../domain/payment-status';
import { actionLimit, paysItsTransaction, type SaleAction } from '../domain/sales';
import type { StoredSale } from '../store/sales';
import type { TransactionSurroundings } from '../store/transaction-detail';
import type { Transaction } from '../store/transactions';
import type { SaleRow } from '../store/schema';
import { Csrf } from './layout';
import type { DashboardText } from './i18n';
import { roleAtLeast } from '../store/users';
import { cardText, type Signed } from './sale-pages';
import { ActionDialog } from './action-dialog';
import type { PaymentSummaryFacts } from '../store/payment-summary';
import { htmlLang, isLanguage } from '../../widget/i18n/language';

// The top of a payment's page: what a merchant asks first (how much, how it stands in words,
// the reference the customer was given, who paid and with which card, what fees our
// balance took and what it kept, how the cardholder was authenticated, the language the
// customer paid in, whether the receipt went out) and its actions, Refund first, each a dialog (action-dialog.tsx) that
// works without script, then "Resend receipt".

/** The sale that paid the transaction: its first that moved money (a late payment's is reversed by the service). */
export const payingSale = (sales: StoredSale[]) => sales.find((s) => paysItsTransaction(s.row)) ?? null;

/** Refund first: what a merchant does most. */
const DIALOG_ACTIONS: SaleAction[] = ['refund', 'capture', 'void'];

/** How the cardholder was authenticated (3-D Secure), in words: the sale records it when its gateway reports it. */
function authenticationText({ t }: DashboardText, sale: Pick<SaleRow, 'authentication_status' | 'authentication_method'>): string {
  if (!sale.authentication_status || !sale.authentication_method) return t('summary.authentication.none');
  return t('summary.authentication.value', { status: t(`summary.authentication.${sale.authentication_status}`), method: t(`summary.authentication.${sale.authentication_method}`) });
}

/**
 * The hosted page's language of the latest attempt that recorded one, named in the
 * dashboard's language ("Spanish", "español"); null for payments made before attempts kept it.
 */
function customerLanguage({ lang }: DashboardText, attempts: TransactionSurroundings['attempts']): string | null {
  const language = attempts.findLast((a) => isLanguage(a.language))?.language;
  return isLanguage(language) ? (new Intl.DisplayNames(lang, { type: 'language' }).of(htmlLang(language)) ?? null) : null;
}

/** Sends the receipt again (receipt-routes.ts): for a paid payment with a customer email. */
function ResendReceipt({ text, session, tx }: Signed & { tx: Transaction }) {
  return (
    <form method="post" action={`/dashboard/transactions/${tx.id}/receipt/`}>
      <Csrf token={session.csrf} />
      <button type="submit">{text.t('summary.receipt.resend')}</button>
    </form>
  );
}

/** What the customer was emailed: their receipt, with when it went (or that it waits or failed). */
function Receipt({ text, receipt, to }: Signed & { receipt: PaymentSummaryFacts['receipt']; to: string | null }) {
  const { t } = text;
  // The mail keeps its address only until it is sent: the payment's customer email is where it went.
  if (!receipt || to === null) return <dd>{t('summary.receipt.none')}</dd>;
  if (receipt.status === 'sent' && receipt.sent_at) return <dd data-testid="receipt">{t('summary.receipt.sent', { to, at: text.dateTime(receipt.sent_at) })}</dd>;
  return <dd data-testid="receipt">{t(`summary.receipt.${receipt.status === 'failed' ? 'failed' : 'pending'}`, { to })}</dd>;
}

export function PaymentSummary(p: Signed & { tx: Transaction; sales: StoredSale[]; attempts: TransactionSurroundings['attempts']; facts: PaymentSummaryFacts; now: Date }) {
  const { text, tx } = p;
  const { t } = text;
  const sale = payingSale(p.sales)?.row ?? null;
  const status = paymentStatus({ tx, sale, lastAttempt: p.attempts.at(-1)?.outcome ?? null }, p.now);
  const admin = roleAtLeast(p.session.current.role, 'admin');
  const actions = sale && admin ? DIALOG_ACTIONS.filter((a) => actionLimit(a, sale) > 0) : [];
  const resend = admin && tx.status === 'D' && !!tx.customer_email;
  const language = customerLanguage(text, p.attempts);
  return (
    <section class="summary" aria-labelledby="summary-title">
      <h2 id="summary-title" class="visually-hidden">
        {t('pay.summary')}
      </h2>
      <p class="amount">
        <strong>{text.money(sale?.amount ?? tx.total_price, tx.currency)}</strong> <span data-status={status}>{t(`pay.status.${status}`)}</span>
      </p>
      <dl class="facts">
        {sale && (
          <>
            <dt>{t('pay.reference')}</dt>
            <dd>
              <code data-testid="reference">{paymentReference(sale.id)}</code>
            </dd>
          </>
        )}
        <dt>{t('pay.customer')}</dt>
        <dd>{tx.customer_email ?? t('pay.noCustomer')}</dd>
        {sale && (
          <>
            <dt>{t('pay.card')}</dt>
            <dd>{cardText(text, sale)}</dd>
            <dt>{t('summary.authentication')}</dt>
            <dd data-testid="authentication">{authenticationText(text, sale)}</dd>
          </>
        )}
        {p.facts.balance && (
          <>
            <dt>{t('summary.fees')}</dt>
            <dd data-testid="fees">{text.money(p.facts.balance.fee, tx.currency)}</dd>
            <dt>{t('summary.net')}</dt>
            <dd data-testid="net">{text.money(p.facts.balance.net, tx.currency)}</dd>
          </>
        )}
        {language && (
          <>
            <dt>{t('summary.language')}</dt>
            <dd data-testid="language">{language}</dd>
          </>
        )}
        <dt>{t('summary.receipt')}</dt>
        <Receipt text={text} session={p.session} receipt={p.facts.receipt} to={tx.customer_email ?? null} />
      </dl>
      {(actions.length > 0 || resend) && (
        <div class="row-actions">
          {sale &&
            actions.map((a) => (
              <ActionDialog key={a} text={text} session={p.session} sale={sale} action={a} />
            ))}
          {resend && <ResendReceipt text={text} session={p.session} tx={tx} />}
        </div>
      )}
    </section>
  );
}
