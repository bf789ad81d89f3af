import { uuidv7 } from '../domain/ids';
import type { ProcessorPayout } from '../domain/processor-settlement';
import type { Db } from './db';
import type { ProcessorPayoutRow, ProcessorType } from './schema';

// The payouts of a merchant's own processor account (migration 140), as the daily sweep last
// read them (payments/processor-payouts.ts): the only writer of `processor_payouts`. The
// processor's payout id is the key: a reading again overwrites what moves and adds no row.

/** Stores what the processor listed: new payouts added, a known one's status, arrival and failure overwritten when they changed. */
export async function saveProcessorPayouts(db: Db, c: { environmentId: string; processorId: string; now: Date }, payouts: ProcessorPayout[]): Promise<void> {
  if (payouts.length === 0) return;
  const at = c.now.toISOString();
  const rows: ProcessorPayoutRow[] = payouts.map((p) => ({
    id: uuidv7(c.now.getTime()),
    environment_id: c.environmentId,
    created_at: at,
    updated_at: at,
    processor_id: c.processorId,
    payout: p.id,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    arrival_date: p.arrivalDate.toISOString(),
    failure_message: p.failureMessage,
    payout_created_at: p.created.toISOString(),
  }));
  await db
    .insertInto('processor_payouts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['processor_id', 'payout'])
        .doUpdateSet((eb) => ({ status: eb.ref('excluded.status'), arrival_date: eb.ref('excluded.arrival_date'), failure_message: eb.ref('excluded.failure_message'), updated_at: at }))
        .where((eb) => eb.or([eb('processor_payouts.status', '<>', eb.ref('excluded.status')), eb('processor_payouts.arrival_date', '<>', eb.ref('excluded.arrival_date'))])),
    )
    .execute();
}

/** A stored payout with the type of its processor. */
export type ProcessorPayoutShown = Pick<ProcessorPayoutRow, 'id' | 'payout' | 'amount' | 'currency' | 'status' | 'arrival_date' | 'failure_message'> & { type: ProcessorType };

/** The environment's latest processor payouts by arrival date, the latest first. */
export async function latestProcessorPayouts(db: Db, environmentId: string, limit: number): Promise<ProcessorPayoutShown[]> {
  const rows = await db
    .selectFrom('processor_payouts as p')
    .innerJoin('processors as r', 'r.id', 'p.processor_id')
    .select(['p.id', 'p.payout', 'p.amount', 'p.currency', 'p.status', 'p.arrival_date', 'p.failure_message', 'r.type'])
    .where('p.environment_id', '=', environmentId)
    .orderBy('p.arrival_date', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, amount: Number(r.amount) }));
}
