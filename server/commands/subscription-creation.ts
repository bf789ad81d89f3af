import { z } from 'zod';
import { LANGUAGES } from '../../widget/i18n/language';
import type { Deps } from '../deps';
import type { FieldError } from '../http/problem';
import { httpUrl, ref, returnUrl, text } from '../schemas/fields';
import { type CatalogueItem, getItem } from '../store/catalogue';
import { getClient } from '../store/clients';
import type { Db } from '../store/db';
import { getAuthorization } from '../store/sales';
import { insertSubscription, type NewSubscription, type StoredSubscription } from '../store/subscriptions';
import { notifyUrlRefusal } from './notify-url';

// Creating a subscription (POST /v1/subscription/): the plan, client and authorization it
// names checked in the environment, the plan's terms copied. A refusal is an outcome naming
// its field, which each front door words its own way (the API as a 400 problem). Starting, pausing, resuming and stopping one are payments/subscription-actions.ts.

/** POST /v1/subscription/'s body. */
export const subscriptionCreate = z
  .strictObject({
    plan: ref('plan').describe('`id` of an enabled plan: its amount, currency, interval, interval_count and trial_days'),
    client: ref('client')
      .optional()
      .describe('`id` of a client of the same environment who subscribes'),
    subscription_id: text(255).optional().describe('Your external identifier'),
    authorization: ref('authorization')
      .optional()
      .describe('`id` of an active authorization to charge; without one, the customer gives a card on `payment_url`'),
    notify_url: httpUrl.optional().describe('Receives the subscription.* notifications'),
    return_url: returnUrl.optional().describe('Where the sign-up page sends the customer once subscribed'),
    cancel_url: returnUrl.optional().describe('Where the sign-up page sends the customer who cancels'),
    language: z.enum(LANGUAGES).optional().describe('Language of the sign-up page; else the browser\'s'),
  })
  .meta({ id: 'Subscription', description: 'A new subscription to a plan' });

export type SubscriptionCreate = z.output<typeof subscriptionCreate>;

/** Created, or refused for one field (the first found). */
export type SubscriptionCreation = { kind: 'created'; subscription: StoredSubscription } | { kind: 'refused'; error: FieldError };

const refusal = (path: string, message: string): FieldError => ({ path, message });

/** The plan the body names, or why a reference it makes is refused in the environment. */
async function checkedReferences(db: Db, environmentId: string, body: SubscriptionCreate): Promise<{ plan: CatalogueItem<'plans'> } | { refused: FieldError }> {
  const plan = await getItem(db, 'plans', environmentId, body.plan);
  if (!plan) return { refused: refusal('plan', 'is not a plan of this environment') };
  if (!plan.enabled) return { refused: refusal('plan', 'is disabled: no new subscriptions') };
  if (body.client && !(await getClient(db, environmentId, body.client))) return { refused: refusal('client', 'is not a client of this environment') };
  if (body.authorization) {
    const authorization = await getAuthorization(db, environmentId, body.authorization);
    if (!authorization) return { refused: refusal('authorization', 'is not an authorization of this environment') };
    if (authorization.status !== 'active') return { refused: refusal('authorization', 'is removed: it cannot be charged') };
  }
  return { plan };
}

/** A new subscription: the plan's terms copied, so a later change of the plan does not alter them. */
function newSubscription(environmentId: string, plan: CatalogueItem<'plans'>, body: SubscriptionCreate): NewSubscription {
  return {
    environment_id: environmentId,
    plan_ref: plan.id,
    plan_name: plan.name,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    interval_count: plan.interval_count,
    trial_days: plan.trial_days,
    client_ref: body.client ?? null,
    subscription_id: body.subscription_id ?? null,
    authorization_id: body.authorization ?? null,
    notify_url: body.notify_url ?? null,
    return_url: body.return_url ?? null,
    cancel_url: body.cancel_url ?? null,
    language: body.language ?? null,
  };
}

/** A new subscription, waiting until started (or until the customer signs up on its payment_url). */
export async function createSubscription(deps: Deps, db: Db, environmentId: string, body: SubscriptionCreate): Promise<SubscriptionCreation> {
  const urlRefusal = body.notify_url === undefined ? undefined : notifyUrlRefusal(body.notify_url, deps.config);
  if (urlRefusal) return { kind: 'refused', error: urlRefusal };
  const checked = await checkedReferences(db, environmentId, body);
  if ('refused' in checked) return { kind: 'refused', error: checked.refused };
  const row = await insertSubscription(db, newSubscription(environmentId, checked.plan, body), deps.now());
  return { kind: 'created', subscription: { row, charges: [] } };
}
