import { sql } from 'kysely';
import { CHARGEABLE } from '../domain/subscription-states';
import type { Db } from './db';

// What the background jobs have yet to do, for the metrics (server/ops/metrics.ts): per
// queue, the items due now and the oldest due time (the job's lag). Each query walks the
// index its job claims through (event_deliveries_due, gateway_calls_due, subscriptions_due).

export interface Backlog {
  queue: 'outbox' | 'reconciliation' | 'subscriptions';
  due: number;
  /** When the oldest due item became due; null when nothing is. */
  oldestDueAt: string | null;
}

const summary = (queue: Backlog['queue'], row: { n: unknown; oldest: unknown } | undefined): Backlog => ({
  queue,
  due: Number(row?.n ?? 0),
  oldestDueAt: typeof row?.oldest === 'string' ? row.oldest : null,
});

export async function jobBacklog(db: Db, now: Date): Promise<Backlog[]> {
  const at = now.toISOString();
  const outbox = await db
    .selectFrom('event_deliveries')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('next_attempt_at').as('oldest')])
    .where('delivery_status', '=', 'pending')
    .where('next_attempt_at', '<=', at)
    .executeTakeFirst();
  // As the reconciliation claims them: past their claim, or abandoned and due for a check.
  const calls = await db
    .selectFrom('gateway_calls')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min(eb.fn.coalesce('check_at', 'claimed_until')).as('oldest')])
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'pending'), eb('claimed_until', '<', at)]),
        eb.and([eb('state', '=', 'abandoned'), eb('check_at', '<=', at)]),
      ]),
    )
    .executeTakeFirst();
  const subscriptions = await db
    .selectFrom('subscriptions')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('next_charge_at').as('oldest')])
    .where('status', 'in', CHARGEABLE)
    .where('next_charge_at', '<=', at)
    .executeTakeFirst();
  return [summary('outbox', outbox), summary('reconciliation', calls), summary('subscriptions', subscriptions)];
}

/**
 * Gateway calls not settled for good, by state: `pending` and `abandoned` (reconciliation's)
 * and `attention` (a person's) where the schema has it. Settled states are left out: they
 * are most of the table and say nothing about work to do.
 */
export async function unsettledCalls(db: Db): Promise<{ state: string; n: number }[]> {
  const { rows } = await sql<{ state: string; n: unknown }>`
    select state, count(*) as n from gateway_calls where state in ('pending', 'abandoned', 'attention') group by state`.execute(db);
  return rows.map((r) => ({ state: r.state, n: Number(r.n) }));
}
