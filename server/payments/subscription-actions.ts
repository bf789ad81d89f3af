import { actionTarget, ACTION_FROM, type SubscriptionAction, type SubscriptionStatus } from '../domain/subscription-states';
import { resumeSchedule, startSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from '../store/db';
import type { EventType, Outbox } from '../store/events';
import type { SubscriptionRow } from '../store/schema';
import { getSubscription, iso, lockSubscription, readSubscription, scheduleColumns, scheduleOf, type StoredSubscription, updateSubscription } from '../store/subscriptions';

// A subscription's states, changed by the spec's four actions and by the hosted sign-up's
// card. Each change is computed from the row as read in its transaction and written only
// while the row is still that (a conditional update): a concurrent action or charge makes
// it match nothing, and the caller is told the state that refused it.

const ACTION_EVENTS: Record<SubscriptionAction, EventType> = {
  start: 'subscription.started',
  pause: 'subscription.paused',
  active: 'subscription.resumed',
  stop: 'subscription.stopped',
};

export type ActionResult =
  | { kind: 'done'; subscription: StoredSubscription }
  | { kind: 'not_found' }
  | { kind: 'conflict'; status: SubscriptionStatus }
  | { kind: 'no_payment_method' };

/** What an allowed action writes, from the row as it is. */
function actionChanges(action: SubscriptionAction, current: SubscriptionRow, now: Date, authorizationId: string | null): Partial<SubscriptionRow> {
  const at = now.toISOString();
  const changes = { status: actionTarget(action, current.trial_days), updated_at: at };
  switch (action) {
    case 'start': {
      const { trialEnd, ...schedule } = startSchedule(now, current.trial_days, current.period);
      return { ...changes, ...scheduleColumns(schedule), started_at: at, trial_end: iso(trialEnd), authorization_id: authorizationId };
    }
    case 'pause':
      return { ...changes, next_charge_at: null, paused_at: at };
    case 'active':
      return { ...changes, ...scheduleColumns(resumeSchedule(now, scheduleOf(current))), paused_at: null };
    case 'stop':
      return { ...changes, next_charge_at: null, stopped_at: at, stop_reason: 'requested' };
  }
}

const conflict = async (trx: Tx, id: string) => ({ kind: 'conflict', status: (await readSubscription(trx, id))!.status as SubscriptionStatus }) as const;
const done = async (trx: Tx, id: string) => ({ kind: 'done', subscription: (await getSubscription(trx, null, id))! }) as const;

/**
 * Applies one of the spec's actions, or nothing. The row is locked before the clock is
 * read: a period's charge being recorded (or any other change) finishes first, so the
 * action judges the row as that leaves it and is dated after it.
 */
export async function applyAction(
  db: Db,
  a: { environmentId: string; id: string; action: SubscriptionAction; clock: () => Date; outbox: Outbox; authorizationId?: string },
): Promise<ActionResult> {
  return inTransaction(db, async (trx) => {
    const current = await lockSubscription(trx, a.id, a.environmentId);
    if (!current) return { kind: 'not_found' } as const;
    const status = current.status as SubscriptionStatus;
    if (!ACTION_FROM[a.action].includes(status)) return { kind: 'conflict', status } as const;
    const authorizationId = a.authorizationId ?? current.authorization_id;
    if (a.action === 'start' && authorizationId === null) return { kind: 'no_payment_method' } as const;
    const now = a.clock();
    const changes = actionChanges(a.action, current, now, authorizationId);
    if (!(await updateSubscription(trx, a.id, changes, { status, updatedAt: current.updated_at }))) return conflict(trx, a.id);
    await a.outbox.emit(trx, ACTION_EVENTS[a.action], a.id, now);
    return done(trx, a.id);
  });
}

/**
 * The hosted sign-up's card (an authorization just stored) made the subscription's payment
 * method, then `start` (waiting) or, for a subscription whose charges fail (past_due), the
 * owed period due again at once: in one transaction.
 */
export async function attachPaymentMethod(
  db: Db,
  a: { subscription: SubscriptionRow; authorizationId: string; customerEmail?: string | null; now: Date; outbox: Outbox },
): Promise<ActionResult> {
  return rollbackOn<ActionResult, ActionResult>(db, async (trx) => {
    const { environment_id: environmentId, id } = a.subscription;
    // Before the start, so its confirmation email finds the address.
    if (a.customerEmail) await updateSubscription(trx, id, { customer_email: a.customerEmail });
    if (a.subscription.status === 'waiting') {
      const started = await applyAction(trx, { environmentId, id, action: 'start', clock: () => a.now, outbox: a.outbox, authorizationId: a.authorizationId });
      if (started.kind !== 'done') throw new Rollback(started);
      return started;
    }
    const at = a.now.toISOString();
    if (!(await updateSubscription(trx, id, { authorization_id: a.authorizationId, next_charge_at: at, updated_at: at }, { status: 'past_due' }))) {
      throw new Rollback(await conflict(trx, id));
    }
    return done(trx, id);
  });
}
