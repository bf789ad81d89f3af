import { z } from 'zod';
import { LANGUAGES } from '../../widget/i18n/language';
import { INTERVALS } from '../domain/periods';
import { ACTION_FROM, SUBSCRIPTION_ACTIONS, SUBSCRIPTION_STATUSES, type SubscriptionAction } from '../domain/subscription-states';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, fieldError, found, notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentSubscription } from '../present/subscription';
import { applyAction } from '../payments/subscription-actions';
import { getSubscription, listSubscriptions } from '../store/subscriptions';
import { createSubscription, subscriptionCreate } from '../commands/subscription-creation';
import { currencyOut, dateTime, exact, livemode, objectId, ref, timestamps } from '../schemas/fields';
import { IDS, page, SUBSCRIPTION_EXAMPLE } from './examples';

// The spec's subscriptions: create, read, and the four actions start / pause / active /
// stop. States, periods, retries and the hosted sign-up: docs/subscriptions.md.

const chargeOut = z.object({
  period: z.number().int().describe('Number of the period in the life of the subscription: 1, 2, …; each is charged at most once'),
  period_start: dateTime.describe('Start of the period charged'),
  period_end: dateTime.describe('End of the period charged'),
  amount: z.number().describe('Major units of `currency`'),
  currency: currencyOut,
  status: z.enum(['pending', 'charged', 'failed']).describe('`pending` while the gateway answers; `failed` until a retry succeeds'),
  attempts: z.number().int().describe('Attempts made at this charge'),
  failure: z.string().nullable().describe('Why the latest attempt failed: `declined`, `insufficient_funds`, `authorization_removed` or `authentication_required`'),
  transaction: z.uuid().nullable().describe('`id` of the completed transaction the charge produced'),
  sale: z.uuid().nullable().describe('`id` of the sale the charge produced'),
  confirm_url: z.url().nullable().describe('Latest attempt `authentication_required`: where the customer pays the period (7 days, no retry meanwhile); else null'),
}).describe('The charge of one period');

export const subscriptionOut = z
  .object({
    id: objectId,
    livemode,
    plan: z.uuid().describe('`id` of the plan; its terms below are copied at creation, so a later change of the plan does not alter them'),
    client: z.uuid().nullable().describe('`id` of the client, if one was given'),
    subscription_id: z.string().nullable().describe('Your external identifier'),
    authorization: z.uuid().nullable().describe('`id` of the authorization (stored payment method) every period is charged to'),
    status: z.enum(SUBSCRIPTION_STATUSES).describe('waiting, trialing, active, paused, past_due or stopped (docs/subscriptions.md)'),
    payment_url: z
      .string()
      .nullable()
      .describe('The hosted sign-up page: takes the card and starts the subscription (waiting, no payment method), or takes a new card (past_due); null otherwise'),
    notify_url: z.string().nullable().describe('Where subscription.* notifications are sent'),
    return_url: z.string().nullable().describe('Where the sign-up page sends the customer once subscribed'),
    cancel_url: z.string().nullable().describe('Where the sign-up page sends the customer who cancels'),
    language: z.enum(LANGUAGES).nullable().describe('Language of the sign-up page; null: the browser\'s'),
    customer_email: z.string().nullable().describe('The email the customer gave on the sign-up page, for the confirmation and the trial reminder; null: none'),
    plan_name: z.string().describe('Name of the plan, copied at creation'),
    amount: z.number().describe('Charged every period, in major units of `currency`'),
    currency: currencyOut,
    interval: z.enum(INTERVALS).describe('Unit of the period, copied from the plan'),
    interval_count: z.number().int().describe('Intervals per period, copied from the plan'),
    trial_days: z.number().int().describe('Free days before the first charge, copied from the plan'),
    started: dateTime.nullable().describe('When it started; null while waiting'),
    trial_end: dateTime.nullable().describe('End of the free trial; the first period is charged then'),
    current_period_start: dateTime.nullable().describe('Start of the period paid for (or of the trial)'),
    current_period_end: dateTime.nullable().describe('End of the period paid for (or of the trial)'),
    next_charge_date: dateTime.nullable().describe('When the next charge (or retry) is made; null when paused, stopped or not started'),
    failed_attempts: z.number().int().describe('Failed attempts at the owed period (past_due)'),
    paused: dateTime.nullable().describe('When it was paused, while paused'),
    stopped: dateTime.nullable().describe('When it was stopped'),
    stop_reason: z.enum(['requested', 'payment_failed']).nullable().describe('Why it stopped: asked for, or retries of a charge ran out'),
    charges: z.array(chargeOut).describe('One entry per period charged or being charged, oldest first'),
    ...timestamps,
  })
  .meta({ id: 'Subscription', description: 'Recurring charges of a plan to a stored payment method' });

const listQuery = pageQuery.extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional().describe('Only subscriptions in this state'),
  plan: ref('plan').optional().describe('Only subscriptions to this plan'),
  client: ref('client').optional().describe('Only subscriptions of this client'),
  subscription_id: exact(255).optional().describe('Only the subscription with this `subscription_id`'),
});


const ACTION_SUMMARIES: Record<SubscriptionAction, string> = {
  start: 'Start a waiting subscription: trialing when its plan has trial days, else active and charged at once',
  pause: 'Pause an active subscription: nothing is charged or owed until it is resumed',
  active: 'Resume a paused subscription: a new period starts, and is charged, at the resume date',
  stop: 'Stop a subscription for good: no charge is ever made after',
};

function actionRoute(action: SubscriptionAction): RouteDef {
  return route({
    method: 'post',
    path: `/subscription/{id}/${action}/`,
    operationId: `${action === 'active' ? 'resume' : action}Subscription`,
    summary: ACTION_SUMMARIES[action],
    description: `${ACTION_SUMMARIES[action]}. Allowed from ${ACTION_FROM[action].join(' or ')}; from any other state it is a 409. Takes no body.`,
    example: { response: SUBSCRIPTION_EXAMPLE },
    tag: 'Subscriptions',
    response: subscriptionOut,
    status: 200,
    async handler({ env, params, deps, baseUrl, db }) {
      const result = await applyAction(db, { environmentId: env.id, id: params.id!, action, clock: deps.now, outbox: deps.outbox });
      switch (result.kind) {
        case 'not_found':
          throw notFound('subscription');
        case 'no_payment_method':
          throw new ApiError('conflict', 'the subscription has no payment method yet: send the customer to its payment_url, which starts it');
        case 'conflict':
          throw new ApiError(
            'conflict',
            `the subscription is ${result.status}: ${action} needs it ${ACTION_FROM[action].join(' or ')}; nothing was changed`,
          );
        case 'done':
          return presentSubscription(result.subscription, baseUrl);
      }
    },
  });
}

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/subscription/',
    operationId: 'listSubscriptions',
    description: 'The subscriptions of your environment, newest first; filter by status, plan, client or `subscription_id`.',
    example: { response: page([SUBSCRIPTION_EXAMPLE]) },
    summary: 'List subscriptions, newest first',
    tag: 'Subscriptions',
    query: listQuery,
    response: pageEnvelopeSchema(subscriptionOut),
    status: 200,
    async handler(ctx) {
      return listPage(ctx, (filters, page) => listSubscriptions(ctx.db, ctx.env.id, filters, page), (s) => presentSubscription(s, ctx.baseUrl));
    },
  });
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/subscription/',
    operationId: 'createSubscription',
    description: 'Subscribes to a plan, whose terms are copied. It waits until started (`start`), or, without an authorization, until the customer gives a card on `payment_url`.',
    example: { request: { plan: IDS.plan, authorization: IDS.authorization, subscription_id: 'sub-77' }, response: { ...SUBSCRIPTION_EXAMPLE, status: 'waiting', started: null, current_period_start: null, current_period_end: null, next_charge_date: null, charges: [] } },
    summary: 'Create a subscription to a plan (waiting until started, or until the customer signs up on payment_url)',
    tag: 'Subscriptions',
    body: subscriptionCreate,
    response: subscriptionOut,
    status: 201,
    async handler({ env, body, deps, baseUrl, db }) {
      const created = await createSubscription(deps, db, env.id, body);
      if (created.kind === 'refused') throw fieldError(created.error.path, created.error.message);
      return presentSubscription(created.subscription, baseUrl);
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/subscription/{id}/',
    operationId: 'getSubscription',
    description: 'One subscription with its charges, oldest first.',
    example: { response: SUBSCRIPTION_EXAMPLE },
    summary: 'Get a subscription with its charges',
    tag: 'Subscriptions',
    response: subscriptionOut,
    status: 200,
    async handler({ env, params, baseUrl, db }) {
      const sub = found(await getSubscription(db, env.id, params.id!), 'subscription');
      return presentSubscription(sub, baseUrl);
    },
  });
}

export const subscriptionRoutes = (): RouteDef[] => [
  listRoute(),
  createRoute(),
  getRoute(),
  ...SUBSCRIPTION_ACTIONS.map(actionRoute),
];
