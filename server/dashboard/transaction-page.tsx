import { toUnits } from '../domain/money';
import { type ApiObjects, ApiObject } from './api-object';
import type { StoredSale } from '../store/sales';
import type { AuthorizationRow, TransactionLineRow } from '../store/schema';
import type { TransactionSurroundings } from '../store/transaction-detail';
import type { Transaction } from '../store/transactions';
import type { DashboardText } from './i18n';
import { exponentOf } from '../domain/currencies';
import { renderPage } from './layout';
import { cardText, SaleBlock, type Signed } from './sale-pages';
import { PaymentSummary } from './payment-summary';
import { PaymentTimeline } from './payment-timeline';
import { type NoteDraft, NoteForm } from './note-form';
import { roleAtLeast } from '../store/users';
import type { PaymentTimelineFacts } from '../store/payment-timeline';
import type { PaymentSummaryFacts } from '../store/payment-summary';

// One transaction: its facts, lines and totals, how it went, who paid and was credited,
// the card it stored, its sales with their actions, and its timeline (payment-timeline.tsx)
// with the form that adds a note to it.

function AuthorizationBlock({ text, auth }: { text: DashboardText; auth: AuthorizationRow }) {
  const { t } = text;
  return (
    <dl class="facts" data-authorization={auth.id}>
      <dt>{t('tx.authorization.id')}</dt>
      <dd>
        <code>{auth.id}</code>
      </dd>
      <dt>{t('sale.card')}</dt>
      <dd>{cardText(text, auth)}</dd>
      {auth.card_exp_month !== null && auth.card_exp_year !== null && (
        <>
          <dt>{t('tx.authorization.expires')}</dt>
          <dd>{`${String(auth.card_exp_month).padStart(2, '0')}/${auth.card_exp_year}`}</dd>
        </>
      )}
      <dt>{t('tx.authorization.status')}</dt>
      <dd>{t(`tx.authorization.${auth.status}`)}</dd>
    </dl>
  );
}

/** The wallets and stored cards that paid the transaction (source) or were credited by it (destination). */
function Parties({ text, tx, title, parties, around }: { text: DashboardText; tx: Transaction; title: string; parties: { amount: number; wallet_id?: string; authorization_id?: string; concept?: string }[]; around: TransactionSurroundings }) {
  const { t } = text;
  const hasConcept = parties.some((x) => x.concept);
  const name = (x: (typeof parties)[number]) => {
    if (x.wallet_id) {
      const w = around.wallets.get(x.wallet_id);
      return w ? t('tx.party.wallet', { wallet: w.wallet_id || w.name, client: w.client_email ? `${w.client_name} (${w.client_email})` : w.client_name }) : t('tx.party.unknown', { id: x.wallet_id });
    }
    const card = x.authorization_id ? around.sourceCards.get(x.authorization_id) : undefined;
    return card ? t('tx.party.card', { card: cardText(text, card) }) : t('tx.party.unknown', { id: x.authorization_id ?? '' });
  };
  return (
    <>
      <h2>{title}</h2>
      <div class="scroll" tabindex={0} role="region" aria-label={title}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('tx.party')}</th>
              <th scope="col">{t('sale.amount')}</th>
              {hasConcept && <th scope="col">{t('tx.concept')}</th>}
            </tr>
          </thead>
          <tbody>
            {parties.map((x, i) => (
              <tr key={i}>
                <td>{name(x)}</td>
                <td>{text.money(Number(toUnits(x.amount, exponentOf(tx.currency))), tx.currency)}</td>
                {hasConcept && <td>{x.concept ?? ''}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Its lines, then the subtotal, what was added and taken off, and the total. */
function LinesAndTotals({ text, tx, lines }: { text: DashboardText; tx: Transaction; lines: TransactionLineRow[] }) {
  const { t } = text;
  const money = (units: number) => text.money(units, tx.currency);
  return (
    <>
      <h2>{t('tx.lines')}</h2>
      <div class="scroll" tabindex={0} role="region" aria-label={t('tx.lines')}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('tx.product')}</th>
              <th scope="col">{t('tx.quantity')}</th>
              <th scope="col">{t('tx.lineTotal')}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr key={l.id}>
                <td>{l.name}</td>
                <td>{l.quantity}</td>
                <td>{money(l.line_total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dl class="facts totals">
        <dt>{t('tx.subtotal')}</dt>
        <dd>{money(tx.items_price)}</dd>
        {tx.tax_value > 0 && (
          <>
            <dt>{t('tx.tax')}</dt>
            <dd>{money(tx.tax_value)}</dd>
          </>
        )}
        {tx.shipping_value > 0 && (
          <>
            <dt>{t('tx.shipping')}</dt>
            <dd>{money(tx.shipping_value)}</dd>
          </>
        )}
        {tx.coupon_value > 0 && (
          <>
            <dt>{t('tx.coupon')}</dt>
            <dd>−{money(tx.coupon_value)}</dd>
          </>
        )}
        <dt>{t('tx.total')}</dt>
        <dd>{money(tx.total_price)}</dd>
      </dl>
    </>
  );
}

export function transactionPage(
  p: Signed & {
    tx: Transaction;
    lines: TransactionLineRow[];
    sales: StoredSale[];
    around: TransactionSurroundings;
    summary: PaymentSummaryFacts;
    timeline: PaymentTimelineFacts;
    now: Date;
    notice?: string;
    /** A note refused, shown again in its form. */
    note?: NoteDraft;
    /** The transaction and its sales as the API answers them, for developers. */
    api: ApiObjects;
  },
): string {
  const { text, tx, around } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('tx.detail', { orderId: tx.order_id ?? tx.id }), active: 'transactions' },
    <>
      {p.notice && (
        <p class="notice info" role="status">
          {p.notice}
        </p>
      )}
      <PaymentSummary text={text} session={p.session} tx={tx} sales={p.sales} attempts={around.attempts} facts={p.summary} now={p.now} />
      <dl class="facts">
        <dt>{t('tx.created')}</dt>
        <dd>{text.dateTime(tx.created_at)}</dd>
        <dt>{t('tx.token')}</dt>
        <dd>
          <code>{tx.token}</code>
        </dd>
      </dl>
      <LinesAndTotals text={text} tx={tx} lines={p.lines} />
      <PaymentTimeline text={text} tx={tx} attempts={around.attempts} sales={p.sales} facts={p.timeline} now={p.now} />
      {roleAtLeast(p.session.current.role, 'admin') && <NoteForm text={text} session={p.session} transactionId={tx.id} draft={p.note} />}
      {tx.source && <Parties text={text} tx={tx} title={t('tx.source')} parties={tx.source} around={around} />}
      {tx.source_state && (
        <p class={tx.source_state === 'failed' ? 'notice error' : 'notice info'}>
          {t(`tx.sourceState.${tx.source_state}`, { reason: tx.source_failure ?? '' })}
        </p>
      )}
      {tx.destination && <Parties text={text} tx={tx} title={t('tx.destination')} parties={tx.destination} around={around} />}
      {around.authorizations.length > 0 && (
        <>
          <h2>{t('tx.authorization')}</h2>
          {around.authorizations.map((a) => (
            <AuthorizationBlock key={a.id} text={text} auth={a} />
          ))}
        </>
      )}
      {p.sales.length === 0 ? tx.status !== 'D' && <p class="empty">{t('sale.none')}</p> : p.sales.map((s) => <SaleBlock key={s.row.id} text={text} session={p.session} sale={s} />)}
      <ApiObject text={text} txId={tx.id} api={p.api} />
    </>,
  );
}
