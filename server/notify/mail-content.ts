import { isLanguage, type Language } from '../../widget/i18n/language';
import type { Interval } from '../domain/periods';
import { paymentReference } from '../domain/payment-reference';
import type { Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import type { Known } from '../store/events';
import { transactionLines, type StoredTransaction } from '../store/transactions';
import { insertMail, unreceiptedRefunds } from '../store/mails';
import type { AccountMail } from './mail-account';
import type { TeamMail } from './mail-team';
import type { EnvironmentRow, SubscriptionRow } from '../store/schema';

// What each email to a customer says, as data: read inside the database transaction of
// the change it reports (so it shows exactly the committed state) and stored with the
// queued email; mail-compose.tsx turns it into text and HTML when it is sent. Cards appear
// by brand and last four digits only: nothing more of a card is ever stored.

export interface Merchant {
  name: string;
  supportEmail: string | null;
}

interface Card {
  brand: string;
  last4: string;
}

interface Common {
  language: Language;
  merchant: Merchant;
  /** The object the email is about (a transaction, a subscription), shown as a reference. */
  reference: string;
  currency: string;
}

export interface PaymentReceipt extends Common {
  kind: 'payment_receipt';
  order: string | null;
  paidAt: string;
  lines: { name: string; quantity: string; total: number }[];
  itemsPrice: number;
  tax: { name: string | null; value: number } | null;
  shipping: { name: string | null; value: number } | null;
  coupon: { name: string | null; value: number } | null;
  total: number;
  card: Card | null;
}

export interface RefundReceipt extends Common {
  kind: 'refund_receipt';
  order: string | null;
  refundedAt: string;
  amount: number;
  refundedTotal: number;
  originalTotal: number;
  card: Card | null;
}

interface Plan {
  name: string;
  amount: number;
  interval: Interval;
  intervalCount: number;
}

export interface SignupConfirmation extends Common {
  kind: 'signup_confirmation';
  plan: Plan;
  signedUpAt: string;
  trialDays: number;
  firstChargeAt: string;
  card: Card | null;
}

export interface TrialReminder extends Common {
  kind: 'trial_reminder';
  plan: Plan;
  firstChargeAt: string;
}

/** What customers are sent about their payments and subscriptions. */
export type CustomerMail = PaymentReceipt | RefundReceipt | SignupConfirmation | TrialReminder;
export type MailContent = CustomerMail | AccountMail | TeamMail;

const languageOf = (value: string | null): Language => (isLanguage(value) ? value : 'en');

const cardOf = (brand: string | null, last4: string | null): Card | null => (brand && last4 ? { brand, last4 } : null);

async function merchantOf(trx: Tx, environmentId: string): Promise<Merchant> {
  const env: Pick<EnvironmentRow, 'name' | 'display_name' | 'support_email'> = await trx
    .selectFrom('environments')
    .select(['name', 'display_name', 'support_email'])
    .where('id', '=', environmentId)
    .executeTakeFirstOrThrow();
  return { name: env.display_name ?? env.name, supportEmail: env.support_email ?? null };
}

const planOf = (row: SubscriptionRow): Plan => ({ name: row.plan_name, amount: row.amount, interval: row.interval, intervalCount: row.interval_count });

/**
 * Queues a paid transaction's receipt as email `mailId`, saying it was paid at `paidAt`:
 * when it is paid, and when the merchant sends it again (dashboard/receipt-routes.ts).
 * None without a customer email.
 */
export async function queuePaymentReceipt(trx: Tx, id: string, mailId: string, paidAt: string, now: Date, known?: StoredTransaction): Promise<void> {
  const tx = known?.row ?? (await trx.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
  if (!tx.customer_email) return;
  const lines = known?.lines ?? (await transactionLines(trx, id));
  const sale = await trx
    .selectFrom('sales')
    .select(['id', 'card_brand', 'card_last4'])
    .where('transaction_id', '=', id)
    .where('failure', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  const content: PaymentReceipt = {
    kind: 'payment_receipt',
    language: languageOf(tx.language),
    merchant: await merchantOf(trx, tx.environment_id),
    // The reference the paid screen showed the customer; a payment made without a sale (from wallets) has none but its transaction's id.
    reference: sale ? paymentReference(sale.id) : tx.id,
    currency: tx.currency,
    order: tx.order_id,
    paidAt,
    lines: lines.map((l) => ({ name: l.name, quantity: l.quantity, total: l.line_total })),
    itemsPrice: tx.items_price,
    tax: tx.tax_value || tx.tax_name ? { name: tx.tax_name, value: tx.tax_value } : null,
    shipping: tx.shipping_value || tx.shipping_name ? { name: tx.shipping_name, value: tx.shipping_value } : null,
    coupon: tx.coupon_value ? { name: tx.coupon_name, value: tx.coupon_value } : null,
    total: tx.total_price,
    card: sale ? cardOf(sale.card_brand, sale.card_last4) : null,
  };
  await insertMail(trx, { id: mailId, environmentId: tx.environment_id, kind: content.kind, subjectId: id, recipient: tx.customer_email, content, now });
}

/** The changes a customer is told about by email, and the email each queues. */
const QUEUERS: Partial<Record<EventType, (trx: Tx, objectId: string, eventId: string, now: Date, known?: Known) => Promise<void>>> = {
  'transaction.paid': (trx, id, eventId, now, known) => queuePaymentReceipt(trx, id, eventId, now.toISOString(), now, known && 'transaction' in known ? known.transaction : undefined),

  async 'sale.refunded'(trx, saleId, eventId, now, known) {
    // Read with the sale, when it was: no customer email, nothing to read or send.
    if (known && 'sale' in known && known.sale.customerEmail === null) return;
    const sale = known && 'sale' in known ? known.sale.row : await trx.selectFrom('sales').selectAll().where('id', '=', saleId).executeTakeFirstOrThrow();
    const tx = sale.transaction_id
      ? await trx.selectFrom('transactions').selectAll().where('id', '=', sale.transaction_id).executeTakeFirst()
      : undefined;
    if (!tx?.customer_email) return;
    // The refund this event reports: the sale's one refund without a receipt yet.
    const [refund] = await unreceiptedRefunds(trx, saleId);
    if (!refund) return;
    const content: RefundReceipt = {
      kind: 'refund_receipt',
      language: languageOf(tx.language),
      merchant: await merchantOf(trx, tx.environment_id),
      reference: paymentReference(sale.id),
      currency: sale.currency,
      order: tx.order_id,
      refundedAt: refund.created_at,
      amount: refund.amount,
      refundedTotal: sale.refunded,
      originalTotal: sale.captured,
      card: cardOf(sale.card_brand, sale.card_last4),
    };
    await insertMail(trx, {
      id: eventId,
      environmentId: sale.environment_id,
      kind: content.kind,
      subjectId: saleId,
      operationId: refund.id,
      recipient: tx.customer_email,
      content,
      now,
    });
  },

  async 'subscription.started'(trx, id, eventId, now) {
    const sub = await trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (!sub.customer_email) return;
    const auth = sub.authorization_id
      ? await trx.selectFrom('authorizations').select(['card_brand', 'card_last4']).where('id', '=', sub.authorization_id).executeTakeFirst()
      : undefined;
    const content: SignupConfirmation = {
      kind: 'signup_confirmation',
      language: languageOf(sub.language),
      merchant: await merchantOf(trx, sub.environment_id),
      reference: sub.id,
      currency: sub.currency,
      plan: planOf(sub),
      signedUpAt: now.toISOString(),
      trialDays: sub.trial_days,
      firstChargeAt: sub.trial_end ?? sub.next_charge_at ?? now.toISOString(),
      card: auth ? cardOf(auth.card_brand, auth.card_last4) : null,
    };
    await insertMail(trx, { id: eventId, environmentId: sub.environment_id, kind: content.kind, subjectId: id, recipient: sub.customer_email, content, now });
  },
};

/** Queues the email a change owes its customer, if any; called by the outbox with the change's event id. */
export async function queueCustomerMail(trx: Tx, type: EventType, objectId: string, eventId: string, now: Date, known?: Known): Promise<void> {
  await QUEUERS[type]?.(trx, objectId, eventId, now, known);
}

/** The reminder before the first charge after a trial (jobs/trial-reminders.ts). */
export async function queueTrialReminder(trx: Tx, subscriptionId: string, id: string, now: Date): Promise<void> {
  const sub = await trx.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  if (!sub.customer_email || !sub.trial_end) return;
  const content: TrialReminder = {
    kind: 'trial_reminder',
    language: languageOf(sub.language),
    merchant: await merchantOf(trx, sub.environment_id),
    reference: sub.id,
    currency: sub.currency,
    plan: planOf(sub),
    firstChargeAt: sub.trial_end,
  };
  await insertMail(trx, { id, environmentId: sub.environment_id, kind: content.kind, subjectId: sub.id, recipient: sub.customer_email, content, now });
}
