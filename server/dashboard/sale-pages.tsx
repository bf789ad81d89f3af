import { actionLimit, type SaleAction } from '../domain/sales';
import { unitsToDecimalString } from '../domain/money';
import type { StoredSale } from '../store/sales';
import type { AuthorizationRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { exponentOf } from '../domain/currencies';
import { Csrf, renderPage } from './layout';

// A sale as the transaction's page shows it (its amounts, history and action forms), and
// the confirmation of a capture, refund or void.

export interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

/** An amount for a form field, with all the currency's decimals (20 → "20.00"). */
function decimalField(units: number, currency: string): string {
  const exponent = exponentOf(currency);
  const [whole, fraction = ''] = unitsToDecimalString(units, exponent).split('.');
  return exponent ? `${whole}.${fraction.padEnd(exponent, '0')}` : whole!;
}

export const cardText = (text: DashboardText, card: Pick<AuthorizationRow, 'card_brand' | 'card_last4'>) =>
  card.card_last4 ? `${card.card_brand ?? text.t('sale.card')} •••• ${card.card_last4}` : text.t('sale.noCard');

const ACTIONS: SaleAction[] = ['capture', 'void', 'refund'];

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
      </dl>
      <h3>{t('sale.history')}</h3>
      <ul>
        {sale.operations.map((op) => (
          <li key={op.id}>
            {text.dateTime(op.created_at)}: {t(`sale.op.${op.kind}`)} {money(op.amount)}
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
    </section>
  );
}

/** The second step of an action: the amount and the card in words, and a key that makes a double click one action. */
export function confirmActionPage(p: Signed & { sale: StoredSale['row']; action: SaleAction; amount: number; idempotencyKey: string; back: string }): string {
  const { text, sale, action } = p;
  const { t } = text;
  const amount = text.money(p.amount, sale.currency);
  return renderPage(
    { text, session: p.session, title: t('sale.confirm.title'), active: 'transactions' },
    <>
      <p>{t('sale.confirm.body', { action: t(`sale.action.${action}`), amount, card: cardText(text, sale) })}</p>
      {/* Money moves in one environment: a live one's confirmation must not pass for a sandbox's. */}
      <p>
        <strong>{t('sale.confirm.environment', { name: p.session.current.environment_name, mode: t(`env.mode.${p.session.current.environment_mode}`) })}</strong>
      </p>
      <div class="row-actions">
        <form method="post" action={`/dashboard/sales/${sale.id}/${action}/`}>
          <Csrf token={p.session.csrf} />
          <input type="hidden" name="amount" value={decimalField(p.amount, sale.currency)} />
          <input type="hidden" name="idempotency_key" value={p.idempotencyKey} />
          <button type="submit" class="primary">
            {t('sale.confirm.submit', { action: t(`sale.verb.${action}`), amount })}
          </button>
        </form>
        <a href={p.back}>{t('sale.confirm.cancel')}</a>
      </div>
    </>,
  );
}
