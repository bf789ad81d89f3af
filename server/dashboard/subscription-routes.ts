import type { IRouter } from 'express';
import { z } from 'zod';
import { SUBSCRIPTION_STATUSES, type SubscriptionAction } from '../domain/subscription-states';
import { getClient } from '../store/clients';
import { getAuthorization } from '../store/sales';
import { applyAction } from '../payments/subscription-actions';
import { getSubscription, listSubscriptions } from '../store/subscriptions';
import type { Kit } from './kit';
import { subscriptionPage } from './subscription-page';
import { confirmStopPage, type SubAction, subscriptionsPage } from './subscription-pages';

// /dashboard/subscriptions/: the environment's subscriptions, and an admin's pause, resume
// and stop through the same store use case as POST /v1/subscription/{id}/{action}/
// (applyAction: the same allowed states, schedule and `subscription.*` events).

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const listQuery = z.object({
  status: z.enum(SUBSCRIPTION_STATUSES).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1),
  done: z.enum(['pause', 'resume', 'stop']).optional().catch(undefined),
});
const API_ACTION: Record<SubAction, SubscriptionAction> = { pause: 'pause', resume: 'active', stop: 'stop' };

export function subscriptionRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;

  router.get('/subscriptions/', page('viewer', async (req, res, s) => {
    const q = listQuery.parse(req.query);
    const { count, rows: items } = await listSubscriptions(db, s.current.environment_id, q.status ? { status: q.status } : {}, { page: q.page, page_size: PAGE_SIZE });
    const notice = q.done ? { text: textOf(req).t(`sub.done.${q.done}`), error: false } : undefined;
    const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    send(res, 200, subscriptionsPage({ text: textOf(req), session: s, rows: items.map((i) => i.row), status: q.status, page: q.page, pages, notice }));
  }));

  router.get('/subscriptions/:id/', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const found = ID.test(id) ? await getSubscription(db, env, id) : undefined;
    if (!found) return notFound(req, res);
    const { row, charges } = found;
    const [client, card] = await Promise.all([
      row.client_ref ? getClient(db, env, row.client_ref) : undefined,
      row.authorization_id ? getAuthorization(db, env, row.authorization_id) : undefined,
    ]);
    send(res, 200, subscriptionPage({ text: textOf(req), session: s, view: { row, charges, client, card } }));
  }));

  for (const name of ['pause', 'resume', 'stop'] as const) {
    router.post(`/subscriptions/:id/${name}/`, forms, action('admin', async (req, res, s) => {
      const env = s.current.environment_id;
      const id = String(req.params.id);
      const found = ID.test(id) ? await getSubscription(db, env, id) : undefined;
      if (!found) return notFound(req, res);
      // Stopping cannot be undone: the first post asks, the confirmed one acts.
      if (name === 'stop' && req.body?.confirm !== 'yes') return send(res, 200, confirmStopPage({ text: textOf(req), session: s, row: found.row }));
      const result = await applyAction(db, { environmentId: env, id, action: API_ACTION[name], clock: deps.now, outbox: deps.outbox });
      if (result.kind === 'not_found') return notFound(req, res);
      if (result.kind !== 'done') {
        const text = textOf(req);
        const { count, rows: items } = await listSubscriptions(db, env, {}, { page: 1, page_size: PAGE_SIZE });
        const notice = { text: text.t('sub.conflict', { status: text.t(`sub.status.${result.kind === 'conflict' ? result.status : 'waiting'}`) }), error: true };
        return send(res, 409, subscriptionsPage({ text, session: s, rows: items.map((i) => i.row), status: undefined, page: 1, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), notice }));
      }
      await audit(req, s, `subscription_${name}`, { subscription: id });
      res.redirect(303, `/dashboard/subscriptions/?done=${name}`);
    }));
  }
}
