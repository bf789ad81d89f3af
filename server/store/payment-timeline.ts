import { sql } from 'kysely';
import type { Db } from './db';
import { type PaymentNote, paymentNotes } from './payment-notes';
import type { DeliveryStatus, MailRow } from './schema';

// What a payment's page needs for its timeline beyond what the page reads anyway (the
// transaction, its attempts, its sales with their operations): the events of the
// transaction, of its sales and of their disputes, each with its webhook deliveries and
// the HTTP status of each delivery's last attempt, in one query once the disputes' ids are
// read; the emails about the transaction and its sales (receipts, resent ones, refund
// receipts), in another; the team's notes on it in a third. All by index: events
// (environment_id, object_id), event_deliveries (event_id), delivery_attempts (delivery_id,
// attempt), disputes (sale_id), mails (subject_id, kind), payment_notes (transaction_id, id).

export interface TimelineDelivery {
  endpoint_id: string | null;
  delivery_status: DeliveryStatus;
  /** The HTTP status its last attempt was answered with; null: no attempt yet, or no answer (timeout, refused connection). */
  status_code: number | null;
  /** Why its last attempt got no answer (a refused connection, a timeout); null otherwise. */
  error: string | null;
}

export interface TimelineEvent {
  id: string;
  type: string;
  created_at: string;
  /** The object as the event carries it (its amount is said with the event's words). */
  data: Record<string, unknown>;
  deliveries: TimelineDelivery[];
}

export type TimelineMail = Pick<MailRow, 'id' | 'kind' | 'status' | 'sent_at' | 'created_at'>;

export interface PaymentTimelineFacts {
  /** Oldest first. */
  events: TimelineEvent[];
  /** Oldest first. */
  mails: TimelineMail[];
  /** Oldest first. */
  notes: PaymentNote[];
}

/** Enough for any payment's life; a page with more shows the first ones. */
const MAX_ROWS = 500;

async function timelineEvents(db: Db, environmentId: string, transactionId: string, saleIds: string[]): Promise<TimelineEvent[]> {
  const disputes = saleIds.length ? await db.selectFrom('disputes').select('id').where('environment_id', '=', environmentId).where('sale_id', 'in', saleIds).execute() : [];
  const rows = await db
    .selectFrom('events')
    .leftJoin('event_deliveries as d', 'd.event_id', 'events.id')
    .select((eb) => [
      'events.id',
      'events.type',
      'events.created_at',
      'events.payload',
      'd.id as delivery_id',
      'd.endpoint_id',
      'd.delivery_status',
      eb.selectFrom('delivery_attempts as a').select('a.status_code').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.attempt', 'desc').limit(1).as('status_code'),
      eb.selectFrom('delivery_attempts as a').select('a.error').whereRef('a.delivery_id', '=', 'd.id').orderBy('a.attempt', 'desc').limit(1).as('error'),
    ])
    .where('events.environment_id', '=', environmentId)
    .where('events.object_id', 'in', [transactionId, ...saleIds, ...disputes.map((d) => d.id)])
    // Sorted as text, not by the column: ordered by the column, SQLite walks the
    // environment's every event through (environment_id, id) to skip a sort of a few rows
    // (480 ms at 10,000 payments, npm run bench -- --only=dashboard), instead of looking up
    // these objects' events through (environment_id, object_id).
    .orderBy(sql`events.id || ''`)
    .limit(MAX_ROWS)
    .execute();
  const events = new Map<string, TimelineEvent>();
  for (const r of rows) {
    const event = events.get(r.id) ?? { id: r.id, type: r.type, created_at: r.created_at, data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data, deliveries: [] };
    events.set(r.id, event);
    if (r.delivery_id !== null && r.delivery_status !== null) {
      event.deliveries.push({ endpoint_id: r.endpoint_id, delivery_status: r.delivery_status, status_code: r.status_code === null ? null : Number(r.status_code), error: r.error });
    }
  }
  // The notify_url first, then the endpoints in the order they were made (UUIDv7), as the event's page lists them.
  for (const e of events.values()) e.deliveries.sort((a, b) => (a.endpoint_id ?? '').localeCompare(b.endpoint_id ?? ''));
  return [...events.values()];
}

export async function paymentTimelineFacts(db: Db, environmentId: string, transactionId: string, saleIds: string[]): Promise<PaymentTimelineFacts> {
  const [events, mails, notes] = await Promise.all([
    timelineEvents(db, environmentId, transactionId, saleIds),
    db
      .selectFrom('mails')
      .select(['id', 'kind', 'status', 'sent_at', 'created_at'])
      .where('environment_id', '=', environmentId)
      .where('subject_id', 'in', [transactionId, ...saleIds])
      .where('kind', 'in', ['payment_receipt', 'refund_receipt'])
      .orderBy('id')
      .limit(MAX_ROWS)
      .execute(),
    paymentNotes(db, environmentId, transactionId),
  ]);
  return { events, mails, notes };
}
