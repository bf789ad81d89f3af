import type { SubscriptionAction, SubscriptionStatus } from '../domain/subscription-states';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import type { Outbox } from '../store/events';
import type { SubscriptionRow } from '../store/schema';
import { actOnSubscription, chargeNewCard, getSubscription, readSubscription, setCustomerEmail, type StoredSubscription } from '../store/subscriptions';

// A subscription's states, changed by the spec's four actions and by the hosted sign-up's
// card. An action locks the row, asks the domain's rules and writes in the store
// (actOnSubscription); the card's other writes are conditional updates: a concurrent
// action or charge makes them match nothing, and the caller is told the state that refused it.

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

const conflict = async (trx: Tx, id: string) => ({ kind: 'conflict', status: (await readSubscription(trx, id))!.status as SubscriptionStatus }) as const;
const done = async (trx: Tx, id: string) => ({ kind: 'done', subscription: (await getSubscription(trx, null, id))! }) as const;

/** Applies one of the spec's actions, or nothing (store/subscriptions.ts actOnSubscription decides and writes), with its event. */
export async function applyAction(
  db: Db,
  a: { environmentId: string; id: string; action: SubscriptionAction; clock: () => Date; outbox: Outbox; authorizationId?: string },
): Promise<ActionResult> {
  return inTransaction(db, async (trx) => {
    const acted = await actOnSubscription(trx, a);
    if (acted.kind !== 'changed') return acted;
    await a.outbox.emit(trx, ACTION_EVENTS[a.action], a.id, acted.at);
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
    if (a.customerEmail) await setCustomerEmail(trx, id, a.customerEmail);
    if (a.subscription.status === 'waiting') {
      const started = await applyAction(trx, { environmentId, id, action: 'start', clock: () => a.now, outbox: a.outbox, authorizationId: a.authorizationId });
      if (started.kind !== 'done') throw new Rollback(started);
      return started;
    }
    if (!(await chargeNewCard(trx, id, a.authorizationId, a.now))) {
      throw new Rollback(await conflict(trx, id));
    }
    return done(trx, id);
  });
}
