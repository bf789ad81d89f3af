import { paymentReference } from '../domain/payment-reference';
import { paymentStatus } from '../domain/payment-status';
import { actionLimit, type SaleAction } from '../domain/sales';
import type { StoredSale } from '../store/sales';
import type { TransactionSurroundings } from '../store/transaction-detail';
import type { Transaction } from '../store/transactions';
import { roleAtLeast } from '../store/users';
import { cardText, type Signed } from './sale-pages';
import { ActionDialog } from './action-dialog';

// The top of a payment's page: what a merchant asks first (how much, how it stands in words,
// the reference the customer was given, who paid and with which card) and its actions,
// Refund first, each a dialog (action-dialog.tsx) that works without script.

/** The sale that paid the transaction: its first that moved money (a late payment's is reversed by the service). */
export const payingSale = (sales: StoredSale[]) => sales.find((s) => s.row.failure === null && s.row.late_for_transaction_id === null) ?? null;

/** Refund first: what a merchant does most. */
const DIALOG_ACTIONS: SaleAction[] = ['refund', 'capture', 'void'];

export function PaymentSummary(p: Signed & { tx: Transaction; sales: StoredSale[]; attempts: TransactionSurroundings['attempts']; now: Date }) {
  const { text, tx } = p;
  const { t } = text;
  const sale = payingSale(p.sales)?.row ?? null;
  const status = paymentStatus({ tx, sale, lastAttempt: p.attempts.at(-1)?.outcome ?? null }, p.now);
  const actions = sale && roleAtLeast(p.session.current.role, 'admin') ? DIALOG_ACTIONS.filter((a) => actionLimit(a, sale) > 0) : [];
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
          </>
        )}
      </dl>
      {sale && actions.length > 0 && (
        <div class="row-actions">
          {actions.map((a) => (
            <ActionDialog key={a} text={text} session={p.session} sale={sale} action={a} />
          ))}
        </div>
      )}
    </section>
  );
}
