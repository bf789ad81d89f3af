import { type QueryResult, sql } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { insertAtCommit, insertRows } from './compiled';
import { type Db, inTransaction, type Tx } from './db';
import { claimEach } from './locking';
import type { GatewayCallKind, GatewayCallRow, GatewayCallState } from './schema';
import { answered, type Planned } from './together';

// The reservation of every gateway call: inserted in the same database transaction as the
// conditional write that reserves the money, settled in the same one as the result. The one
// module that writes `gateway_calls` (a lint rule keeps it so, eslint.config.js): a call's
// changes of state, most of them once (a conditional update), down to its purge.

export interface GatewayCall extends Omit<GatewayCallRow, 'request'> {
  request: Record<string, unknown>;
}

/** A gateway as the rows it makes name it: its id, and the processor it acts for (`account`; none: a shared gateway). */
export interface RowGateway {
  id: string;
  account?: string | null;
}

export function newCall(c: {
  environmentId: string;
  gateway: RowGateway;
  kind: GatewayCallKind;
  subjectId: string;
  amount: number;
  currency: string;
  request?: Record<string, unknown>;
  now: Date;
  claimMs: number;
  /** The Idempotency-Key binding of the request and the call's step in it, if keyed. */
  bound?: { binding: string; step: number };
  /** The processor's id of what the call continues (a challenge's), if known already. */
  processorId?: string | null;
}): GatewayCall {
  const id = uuidv7(c.now.getTime());
  const at = c.now.toISOString();
  return {
    id,
    // Our idempotency reference: the reservation's own id, so a retry of this call (or a
    // lookup after a crash) names the same reservation; under an Idempotency-Key, the
    // key's binding and the step, so a retry of the request sends the same reference.
    reference: c.bound ? `gk_${c.bound.binding}_${c.bound.step}` : `gc_${id}`,
    binding: c.bound?.binding ?? null,
    step: c.bound?.step ?? null,
    unknown_since: null,
    processor_id: c.processorId ?? null,
    environment_id: c.environmentId,
    gateway_id: c.gateway.id,
    gateway_account: c.gateway.account ?? null,
    kind: c.kind,
    state: 'pending',
    subject_id: c.subjectId,
    amount: c.amount,
    currency: c.currency,
    request: c.request ?? {},
    claimed_until: new Date(c.now.getTime() + c.claimMs).toISOString(),
    check_at: null,
    checks: 0,
    result_id: null,
    created_at: at,
    updated_at: at,
  };
}

/**
 * The source payment's sale a refund call makes a card's part of (payments/source-refunds.ts),
 * or undefined: its amounts, pending count and history move with the charge's.
 */
export const linkedSale = (call: Pick<GatewayCall, 'kind' | 'request'>): string | undefined =>
  call.kind === 'refund' && typeof call.request.source_sale === 'string' ? call.request.source_sale : undefined;

/**
 * The sales a capture / refund / void call moves, in the order their rows are locked: a
 * linked sale first, then its subject (as a refund of the linked sale reserves them), so
 * two of them never wait on each other in opposite orders.
 */
export const salesOfAction = (call: Pick<GatewayCall, 'kind' | 'request' | 'subject_id'>): string[] => {
  const whole = linkedSale(call);
  return whole ? [whole, call.subject_id] : [call.subject_id];
};

const toRow = (c: GatewayCall): GatewayCallRow => ({ ...c, request: JSON.stringify(c.request) });
const fromRow = (r: GatewayCallRow): GatewayCall => ({ ...r, request: JSON.parse(r.request) as Record<string, unknown> });

export async function insertCall(db: Db, call: GatewayCall): Promise<void> {
  await insertRows(db, 'gateway_calls', [toRow(call)]);
}

/**
 * Inserts the call as `trx` commits, with its other last writes (compiled.ts insertAtCommit;
 * sent with the commit: in its round trip on PostgreSQL, its message to the writer thread on
 * SQLite, unread.ts): for a call reserved as the last step of the transaction that claims
 * the right to make it, and sent to its gateway once that has committed. A refusal (a
 * second pending call where only one may be) fails the commit.
 */
export async function insertCallAtCommit(trx: Tx, call: GatewayCall): Promise<void> {
  await insertAtCommit(trx, 'gateway_calls', [toRow(call)]);
}

/**
 * Inserts a store call unless another store of the same authorization is pending or has
 * succeeded (the partial unique index of migration 088): false when one has, so it is not sent.
 */
export async function insertStoreCall(db: Db, call: GatewayCall): Promise<boolean> {
  const inserted = await db.insertInto('gateway_calls').values(toRow(call)).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** A call just settled: whether it had been marked of unknown outcome (its sales count it pending, store/unknown-outcomes.ts). */
export interface SettledCall {
  unknown_since: string | null;
}

/**
 * Moves a call from one of `from` to `to`, once: undefined when another process (the live
 * request or a reconciler) settled it first, so whoever gets the call records the result.
 */
export function settleCall(...args: Parameters<typeof settleCallPlanned>): Promise<SettledCall | undefined> {
  return answered(args[0], settleCallPlanned(...args));
}

/** settleCall's statement, to send with others (together.ts). */
export function settleCallPlanned(
  trx: Tx,
  id: string,
  from: GatewayCallState[],
  to: GatewayCallState,
  now: Date,
  extra: { resultId?: string | null; checkAt?: Date | null; processorId?: string | null; request?: Record<string, unknown> } = {},
): Planned<SettledCall | undefined> {
  const query = trx
    .updateTable('gateway_calls')
    .set({
      state: to,
      updated_at: now.toISOString(),
      claimed_until: null,
      ...(extra.resultId !== undefined ? { result_id: extra.resultId } : {}),
      check_at: extra.checkAt ? extra.checkAt.toISOString() : null,
      ...(extra.processorId ? { processor_id: extra.processorId } : {}),
      ...(extra.request ? { request: JSON.stringify(extra.request) } : {}),
    })
    .where('id', '=', id)
    .where('state', 'in', from)
    .returning('unknown_since')
    .compile();
  return { query, read: ({ rows }: QueryResult<SettledCall>) => rows[0] };
}

/**
 * settleCall that also gives the call its result unless it has one already (a pending
 * sale an unknown outcome made, perhaps by a reconciler after the caller read the call):
 * one statement. Resolves with the call's result id after it (`candidate` when it had
 * none), or undefined when the call was not in a `from` state.
 */
export async function settleCallWithResult(
  trx: Tx,
  id: string,
  from: GatewayCallState[],
  to: GatewayCallState,
  now: Date,
  candidate: string | null,
  processorId?: string | null,
): Promise<{ resultId: string | null } | undefined> {
  const row = await trx
    .updateTable('gateway_calls')
    .set({
      state: to,
      updated_at: now.toISOString(),
      claimed_until: null,
      check_at: null,
      result_id: sql<string | null>`coalesce(result_id, ${candidate})`,
      ...(processorId ? { processor_id: processorId } : {}),
    })
    .where('id', '=', id)
    .where('state', 'in', from)
    .returning('result_id')
    .executeTakeFirst();
  return row && { resultId: row.result_id };
}

/**
 * Calls to reconcile: pending ones whose claim ran out (the process that made them died
 * before recording the answer) and abandoned ones due for a check. Each is claimed for
 * `leaseMs` with a conditional update, so of several processes one takes it.
 */
export async function claimCallsToReconcile(db: Db, now: Date, leaseMs: number, limit: number): Promise<GatewayCall[]> {
  const at = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  return inTransaction(db, async (trx) => {
    const due = trx
      .selectFrom('gateway_calls')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'pending'), eb('claimed_until', '<', at)]),
          eb.and([eb('state', '=', 'abandoned'), eb('check_at', '<=', at)]),
        ]),
      )
      .orderBy('created_at')
      .limit(limit);
    return claimEach(trx, due, async (row) => {
      const lease =
        row.state === 'pending'
          ? trx.updateTable('gateway_calls').set({ claimed_until: until }).where('claimed_until', '=', row.claimed_until)
          : trx.updateTable('gateway_calls').set({ check_at: until }).where('check_at', '=', row.check_at);
      const taken = await lease.where('id', '=', row.id).where('state', '=', row.state).executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? fromRow(row) : undefined;
    });
  });
}

/** An abandoned call the gateway could not be asked about: asked again later, or given up on (check_at null). */
export async function postponeCheck(db: Db, id: string, checkAt: Date | null, now: Date): Promise<void> {
  await db
    .updateTable('gateway_calls')
    .set((eb) => ({ check_at: checkAt ? checkAt.toISOString() : null, checks: eb('checks', '+', 1), updated_at: now.toISOString() }))
    .where('id', '=', id)
    .where('state', '=', 'abandoned')
    .execute();
}

/**
 * The processor's own id of what a call made or started (a challenge's, an approval's
 * reference), noted on the call where its answer is not recorded in the same statement
 * that settles it. Its state and `updated_at` stay as they are.
 */
export async function noteProcessorId(db: Db, id: string, processorId: string): Promise<void> {
  await db.updateTable('gateway_calls').set({ processor_id: processorId }).where('id', '=', id).execute();
}

/**
 * The processor id a challenge's resumed call continues: the one the call that opened the
 * challenge noted. A payment's challenge is opened in the statement that fails its pay call,
 * on one clock reading (store/challenges.ts), so that call is the transaction's pay call
 * settled at the challenge's `created_at`; a store's is its authorization's latest store
 * call that noted one (one store of an authorization is in progress at a time).
 */
export async function challengeProcessorId(
  db: Db,
  c: { kind: 'pay' | 'store'; subjectId: string; gatewayId: string; openedAt?: string },
): Promise<string | null> {
  let q = db
    .selectFrom('gateway_calls')
    .select('processor_id')
    .where('subject_id', '=', c.subjectId)
    .where('kind', '=', c.kind)
    .where('gateway_id', '=', c.gatewayId)
    .where('processor_id', 'is not', null);
  if (c.openedAt !== undefined) q = q.where('updated_at', '=', c.openedAt);
  const row = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row?.processor_id ?? null;
}

/** A pending call whose gateway could not be asked: claimed again after `retryAt`. */
export async function extendClaim(db: Db, id: string, retryAt: Date): Promise<void> {
  await db
    .updateTable('gateway_calls')
    .set((eb) => ({ claimed_until: retryAt.toISOString(), checks: eb('checks', '+', 1) }))
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * Marks a pending call's outcome unknown, once, claimed until `until`; false when another
 * process settled or marked it first.
 */
export async function markUnknown(trx: Tx, callId: string, now: Date, until: Date): Promise<boolean> {
  const at = now.toISOString();
  const marked = await trx
    .updateTable('gateway_calls')
    .set({ unknown_since: at, claimed_until: until.toISOString(), updated_at: at })
    .where('id', '=', callId)
    .where('state', '=', 'pending')
    .where('unknown_since', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

/** What the call made, named on it: its object (a charge's sale, also while its outcome is unknown), and the processor's reference when known. */
export async function nameCallResult(trx: Tx, callId: string, names: { result_id: string; processor_id?: string }): Promise<void> {
  await trx.updateTable('gateway_calls').set(names).where('id', '=', callId).execute();
}

/** Takes a pending call over to send it again (its claim ran out: its process died), once; false if someone else has it. */
export async function reclaimCall(db: Db, call: GatewayCall, now: Date, claimMs: number): Promise<GatewayCall | null> {
  const until = new Date(now.getTime() + claimMs).toISOString();
  const taken = await db
    .updateTable('gateway_calls')
    .set({ claimed_until: until })
    .where('id', '=', call.id)
    .where('state', '=', 'pending')
    .where('unknown_since', 'is', null)
    .where('claimed_until', '=', call.claimed_until)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1 ? { ...call, claimed_until: until } : null;
}

/** Moves a pending call to `attention`, once: for a person (docs/operations.md). */
export async function moveToAttention(db: Db, callId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const moved = await db
    .updateTable('gateway_calls')
    .set({ state: 'attention', claimed_until: null, updated_at: at })
    .where('id', '=', callId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/**
 * Gateway calls settled for good (succeeded, failed, reversed) and last changed before
 * `before`: what they moved is on the sales and the ledger; the row only served
 * reconciliation, which never looks at a settled call again.
 */
export async function purgeSettledCalls(db: Db, before: Date, batch: number): Promise<number> {
  const ids = (
    await db
      .selectFrom('gateway_calls')
      .select('id')
      .where('state', 'in', ['succeeded', 'failed', 'reversed'])
      .where('updated_at', '<', before.toISOString())
      .limit(batch)
      .execute()
  ).map((r) => r.id);
  if (!ids.length) return 0;
  const result = await db
    .deleteFrom('gateway_calls')
    .where('id', 'in', ids)
    .where('state', 'in', ['succeeded', 'failed', 'reversed'])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listCalls(db: Db, subjectId: string): Promise<GatewayCall[]> {
  const rows = await db.selectFrom('gateway_calls').selectAll().where('subject_id', '=', subjectId).orderBy('id').execute();
  return rows.map(fromRow);
}


/**
 * A pay call whose gateway sent the customer to the processor: it stays pending, with what
 * the processor started and where the customer was sent (a POST's form is rendered again
 * from it, checkout's go route), until its return, a notification or, once `until` passes,
 * the reconciliation settles it. false when it was settled meanwhile.
 */
export async function awaitReturn(db: Db, call: GatewayCall, p: { processorId: string | null; redirect: unknown; until: Date }): Promise<boolean> {
  const result = await db
    .updateTable('gateway_calls')
    .set({
      request: JSON.stringify({ ...call.request, redirect: p.redirect }),
      claimed_until: p.until.toISOString(),
      ...(p.processorId ? { processor_id: p.processorId } : {}),
    })
    .where('id', '=', call.id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
