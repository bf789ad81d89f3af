import type { ComponentChildren } from 'preact';
import { effectiveStatus } from '../domain/transaction-status';
import type { PaymentNote } from '../store/payment-notes';
import type { PaymentTimelineFacts, TimelineDelivery, TimelineEvent, TimelineMail } from '../store/payment-timeline';
import type { StoredSale } from '../store/sales';
import type { TransactionSurroundings } from '../store/transaction-detail';
import type { Transaction } from '../store/transactions';
import { EventLink } from './event-words';
import type { DashboardText } from './i18n';
import { cardText } from './sale-pages';

// A payment's timeline: everything that happened to it, oldest first (a payment's life is
// short and reads as a story, from creation to where it stands; the summary above already
// says where it stands now): its creation and payment attempts, how it ended, its sales'
// captures, refunds (with their reason) and voids, every event of it, of its sales and of
// their disputes in words with each webhook delivery's last HTTP status, the emails to the
// customer, and the team's notes with their author. Each at its time in the shop's time zone.

/** What payment_attempts.outcome holds (store/payments.ts writes these). */
const OUTCOMES = ['approved', 'declined', 'insufficient_funds', 'redirected', 'rejected'] as const;
const isOutcome = (o: string): o is (typeof OUTCOMES)[number] => (OUTCOMES as readonly string[]).includes(o);

interface Entry {
  at: string;
  key: string;
  body: ComponentChildren;
}

function Delivery({ text, delivery: d }: { text: DashboardText; delivery: TimelineDelivery }) {
  const { t } = text;
  // Inside a sentence: the destination in lower case (the events page's labels begin one).
  const destination = d.endpoint_id === null ? t('timeline.toNotifyUrl') : t('timeline.toEndpoint');
  const state = t(`ev.state.${d.delivery_status}`);
  // The last attempt's answer, or why there was none: "Pending" alone hid three refused connections.
  const said =
    d.status_code !== null
      ? t('timeline.webhookAnswered', { destination, state, code: d.status_code })
      : d.error !== null
        ? t('timeline.webhookUnanswered', { destination, state, error: d.error })
        : t('timeline.webhook', { destination, state });
  return <li data-testid="webhook">{said}</li>;
}

function EventEntry({ text, event }: { text: DashboardText; event: TimelineEvent }) {
  return (
    <>
      <EventLink text={text} event={event} />
      {event.deliveries.length > 0 && (
        <ul>
          {event.deliveries.map((d, i) => (
            <Delivery key={i} text={text} delivery={d} />
          ))}
        </ul>
      )}
    </>
  );
}

const mailEntry = (text: DashboardText, m: TimelineMail): Entry => ({
  at: m.sent_at ?? m.created_at,
  key: `mail-${m.id}`,
  body: <span data-testid="timeline-mail">{text.t(`timeline.${m.kind === 'refund_receipt' ? 'refundReceipt' : 'receipt'}.${m.status}`)}</span>,
});

const noteEntry = (text: DashboardText, n: PaymentNote): Entry => ({
  at: n.created_at,
  key: `note-${n.id}`,
  body: (
    <span data-testid="timeline-note">
      {text.t('note.entry', { author: n.author_email })}: <span class="note">{n.body}</span>
    </span>
  ),
});

function saleEntries(text: DashboardText, sale: StoredSale): Entry[] {
  const { t } = text;
  return sale.operations.map((op) => ({
    at: op.created_at,
    key: `op-${op.id}`,
    body: (
      <>
        {t(`sale.op.${op.kind}`)} {text.money(op.amount, sale.row.currency)}
        {op.reason && ` (${t(`refund.reason.${op.reason}`)})`}
      </>
    ),
  }));
}

function statusEntries(text: DashboardText, tx: Transaction, attempts: TransactionSurroundings['attempts'], now: Date): Entry[] {
  const { t } = text;
  const status = effectiveStatus(tx.status, tx.expired_at, now);
  // A transaction that expired unswept still says N: it ended at its expiry.
  const endedAt = status === 'E' && tx.status === 'N' ? tx.expired_at : tx.updated_at;
  return [
    { at: tx.created_at, key: 'created', body: t('tx.history.created') },
    ...attempts.map((a) => ({
      at: a.created_at,
      key: `attempt-${a.id}`,
      body: `${isOutcome(a.outcome) ? t(`tx.attempt.${a.outcome}`) : a.outcome}${a.card_last4 ? ` (${cardText(text, a)})` : ''}`,
    })),
    ...(status !== 'N' ? [{ at: endedAt, key: 'ended', body: t(`tx.status.${status}`) }] : []),
  ];
}

export function PaymentTimeline(p: { text: DashboardText; tx: Transaction; attempts: TransactionSurroundings['attempts']; sales: StoredSale[]; facts: PaymentTimelineFacts; now: Date }) {
  const { text } = p;
  const entries = [
    ...statusEntries(text, p.tx, p.attempts, p.now),
    ...p.sales.flatMap((s) => saleEntries(text, s)),
    ...p.facts.events.map((e) => ({ at: e.created_at, key: `event-${e.id}`, body: <EventEntry text={text} event={e} /> })),
    ...p.facts.mails.map((m) => mailEntry(text, m)),
    ...p.facts.notes.map((n) => noteEntry(text, n)),
    // Stable: what happened at the same instant keeps the order above (the status before what it caused).
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <>
      <h2>{text.t('tx.timeline')}</h2>
      <ol class="history">
        {entries.map((e) => (
          <li key={e.key}>
            <time dateTime={e.at}>{text.dateTime(e.at)}</time>: {e.body}
          </li>
        ))}
      </ol>
    </>
  );
}
