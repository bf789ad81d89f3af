import { actionLimit, type SaleAction } from '../domain/sales';
import { paymentReference, OPERATION_REASONS, type OperationReason } from '../domain/payment-reference';
import { unitsToDecimalString } from '../domain/money';
import type { StoredSale } from '../store/sales';
import type { AuthorizationRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { exponentOf } from '../domain/currencies';
import { processorSettlement } from '../domain/processor-settlement';
import { Csrf, renderPage } from './layout';

// A sale as the transaction's page shows it (its amounts, history and action forms), and
// the confirmation of a capture, refund or void.

export interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

/** An amount for a form field, with all the currency's decimals (20 → "20.00"). */
export function decimalField(units: number, currency: string): string {
  const exponent = exponentOf(currency);
  const [whole, fraction = ''] = unitsToDecimalString(units, exponent).split('.');
  return exponent ? `${whole}.${fraction.padEnd(exponent, '0')}` : whole!;
}

export const cardText = (text: DashboardText, card: Pick<AuthorizationRow, 'card_brand' | 'card_last4'>) =>
  card.card_last4 ? `${card.card_brand ?? text.t('sale.card')} •••• ${card.card_last4}` : text.t('sale.noCard');

/**
 * Stripe's own fee and net of a sale the merchant's Stripe account settles, beside the sale's
 * amounts: "not known yet" until they are read (docs/processors.md "What settles where").
 * Nothing for a sale the platform settles, nor while nothing is captured.
 */
function ProcessorFigures({ text, sale }: { text: DashboardText; sale: StoredSale }) {
  const { t } = text;
  const s = processorSettlement(sale.row, sale.settlement ?? null);
  if (s?.status === 'pending') {
    return (
      <>
        <dt>{t('sale.processorFee')}</dt>
        <dd data-testid="processor-fee">{t('sale.processorPending')}</dd>
      </>
    );
  }
  const f = s?.figures;
  if (!f) return null;
  return (
    <>
      <dt>{t('sale.processorFee')}</dt>
      <dd data-testid="processor-fee">{text.money(f.fee, f.currency)}</dd>
      <dt>{t('sale.processorNet')}</dt>
      <dd data-testid="processor-net">{text.money(f.net, f.currency)}</dd>
      {f.availableOn && (
        <>
          <dt>{t('sale.processorAvailable')}</dt>
          <dd>{text.dateTime(f.availableOn.toISOString())}</dd>
        </>
      )}
    </>
  );
}

/** Actions made from a form in the sale's block; a refund has a step of its own (refundStepPage), with its reason. */
const ACTIONS: SaleAction[] = ['capture', 'void'];

export function SaleBlock({ text, session, sale }: Signed & { sale: StoredSale }) {
  const { t } = text;
  const { row } = sale;
  const money = (units: number) => text.money(units, row.currency);
  const canAct = roleAtLeast(session.current.role, 'admin');
  return (
    <section class="sale" aria-labelledby={`sale-${row.id}`} data-sale={row.id}>
      <h2 id={`sale-${row.id}`}>{t('sale.title', { id: row.id })}</h2>
      <dl class="facts">
        <dt>{t('sale.card')}</dt>
        <dd>{cardText(text, row)}</dd>
        <dt>{t('sale.amount')}</dt>
        <dd>{money(row.amount)}</dd>
        <dt>{t('sale.held')}</dt>
        <dd>{money(row.held)}</dd>
        <dt>{t('sale.captured')}</dt>
        <dd>{money(row.captured)}</dd>
        <dt>{t('sale.refunded')}</dt>
        <dd data-testid="refunded">{money(row.refunded)}</dd>
        <dt>{t('sale.voided')}</dt>
        <dd>{money(row.voided)}</dd>
        <ProcessorFigures text={text} sale={sale} />
      </dl>
      <h3>{t('sale.history')}</h3>
      <ul>
        {sale.operations.map((op) => (
          <li key={op.id}>
            {text.dateTime(op.created_at)}: {t(`sale.op.${op.kind}`)} {money(op.amount)}
            {op.reason && ` (${t(`refund.reason.${op.reason}`)})`}
          </li>
        ))}
      </ul>
      {canAct &&
        ACTIONS.filter((a) => actionLimit(a, row) > 0).map((a) => (
          <form key={a} method="post" action={`/dashboard/sales/${row.id}/${a}/`} class="card">
            <Csrf token={session.csrf} />
            <label for={`${a}-${row.id}`}>{t('sale.amountOf', { action: t(`sale.verb.${a}`), currency: row.currency })}</label>
            <input id={`${a}-${row.id}`} name="amount" inputMode="decimal" required value={decimalField(actionLimit(a, row), row.currency)} />
            <button type="submit">{t(`sale.action.${a}`)}</button>
          </form>
        ))}
      {canAct && actionLimit('refund', row) > 0 && (
        <form method="get" action={`/dashboard/sales/${row.id}/refund/`} class="row-actions">
          <button type="submit">{t('pay.refundOpen')}</button>
        </form>
      )}
    </section>
  );
}

/** The second step of an action: the amount and the card in words, and a key that makes a double click one action. */
export function confirmActionPage(
  p: Signed & { sale: StoredSale['row']; action: SaleAction; amount: number; idempotencyKey: string; back: string; reason?: OperationReason },
): string {
  const { text, sale, action } = p;
  const { t } = text;
  const amount = text.money(p.amount, sale.currency);
  return renderPage(
    { text, session: p.session, title: t('sale.confirm.title'), active: 'transactions' },
    <>
      <p>{t('sale.confirm.body', { action: t(`sale.action.${action}`), amount, card: cardText(text, sale) })}</p>
      {p.reason && <p>{t('refund.confirmReason', { reason: t(`refund.reason.${p.reason}`) })}</p>}
      {/* Money moves in one environment: a live one's confirmation must not pass for a sandbox's. */}
      <p>
        <strong>{t('sale.confirm.environment', { name: p.session.current.environment_name, mode: t(`env.mode.${p.session.current.environment_mode}`) })}</strong>
      </p>
      <div class="row-actions">
        <form method="post" action={`/dashboard/sales/${sale.id}/${action}/`}>
          <Csrf token={p.session.csrf} />
          <input type="hidden" name="amount" value={decimalField(p.amount, sale.currency)} />
          <input type="hidden" name="idempotency_key" value={p.idempotencyKey} />
          {p.reason && <input type="hidden" name="reason" value={p.reason} />}
          <button type="submit" class="primary">
            {t('sale.confirm.submit', { action: t(`sale.verb.${action}`), amount })}
          </button>
        </form>
        <a href={p.back}>{t('sale.confirm.cancel')}</a>
      </div>
    </>,
  );
}

/**
 * The merchant's reason for an action, one of the API's: a refund's is required (the form
 * refuses an empty choice), a capture's or void's may stay empty.
 */
export function ReasonSelect({ text, id, required, selected }: { text: DashboardText; id: string; required?: boolean; selected?: string }) {
  const { t } = text;
  return (
    <>
      <label for={id}>{t(required ? 'refund.reason' : 'sale.reasonOptional')}</label>
      <select id={id} name="reason" required={required}>
        <option value="">{t(required ? 'refund.choose' : 'sale.noReason')}</option>
        {OPERATION_REASONS.map((r) => (
          <option key={r} value={r} selected={selected === r}>
            {t(`refund.reason.${r}`)}
          </option>
        ))}
      </select>
    </>
  );
}

/**
 * A refund's amount (empty: the merchant types it, up to what is refundable) and reason, and
 * Continue to its confirmation: on the refund's own page and in the payment page's dialog
 * (`idPrefix` keeps their fields' ids apart).
 */
export function RefundForm(p: Signed & { sale: StoredSale['row']; idPrefix: string; error?: string; amount?: string; reason?: string; autofocus?: boolean }) {
  const { text, sale, idPrefix: id } = p;
  const { t } = text;
  const max = text.money(actionLimit('refund', sale), sale.currency);
  return (
    <form method="post" action={`/dashboard/sales/${sale.id}/refund/`} class="card">
      <Csrf token={p.session.csrf} />
      <label for={`${id}-amount`}>{t('refund.amount', { currency: sale.currency })}</label>
      <input id={`${id}-amount`} name="amount" inputMode="decimal" required autocomplete="off" value={p.amount ?? ''} aria-describedby={`${id}-amount-hint`} aria-invalid={p.error ? 'true' : undefined} autofocus={p.autofocus} />
      <p id={`${id}-amount-hint`} class="hint">
        {t('refund.amountHint', { max })}
      </p>
      <ReasonSelect text={text} id={`${id}-reason`} required selected={p.reason} />
      <button type="submit" class="primary">
        {t('refund.continue')}
      </button>
    </form>
  );
}

/** What a refund is of: the amount paid, the card, the reference and what can be refunded. */
export const refundIntro = (text: DashboardText, sale: StoredSale['row']) =>
  text.t('refund.intro', { amount: text.money(sale.amount, sale.currency), card: cardText(text, sale), reference: paymentReference(sale.id), max: text.money(actionLimit('refund', sale), sale.currency) });

/**
 * A refund's first step as a page of its own: the sale block's Refund… opens it, and a
 * refused amount or reason comes back to it. Plain form fields, so it works with a keyboard
 * and without script; the next step is the confirmation.
 */
export function refundStepPage(p: Signed & { sale: StoredSale['row']; back: string; error?: string; amount?: string; reason?: string }): string {
  const { text, sale } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('refund.title'), active: 'transactions' },
    <>
      {p.error && (
        <p class="notice error" role="alert" id="refund-error">
          {p.error}
        </p>
      )}
      <p>{refundIntro(text, sale)}</p>
      <RefundForm text={text} session={p.session} sale={sale} idPrefix="refund" error={p.error} amount={p.amount} reason={p.reason} />
      <p>
        <a href={p.back}>{t('sale.confirm.cancel')}</a>
      </p>
    </>,
  );
}
