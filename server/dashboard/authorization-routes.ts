import type { IRouter } from 'express';
import { z } from 'zod';
import { getAuthorization, listAuthorizations } from '../store/sales';
import { removeAuthorization } from '../payments/authorization-removal';
import { AUTHORIZATION_STATUSES, authorizationsPage, confirmRemovePage } from './authorization-pages';
import type { Kit } from './kit';

// /dashboard/authorizations/: the environment's stored cards, and an admin's removal
// through the same use case as POST /v1/authorization/{id}/remove/ (payments/authorization-removal.ts:
// active → removed once, with its `authorization.removed` event).

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const listQuery = z.object({
  status: z.enum(AUTHORIZATION_STATUSES).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1),
  done: z.literal('remove').optional().catch(undefined),
});

export function authorizationRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;

  const list = async (environmentId: string, q: z.output<typeof listQuery>) => {
    const { count, rows } = await listAuthorizations(db, environmentId, q.status ? { status: q.status } : {}, { page: q.page, page_size: PAGE_SIZE });
    return { rows, status: q.status, page: q.page, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) };
  };

  router.get('/authorizations/', page('viewer', async (req, res, s) => {
    const q = listQuery.parse(req.query);
    const notice = q.done ? { text: textOf(req).t('auth.done.remove'), error: false } : undefined;
    send(res, 200, authorizationsPage({ text: textOf(req), session: s, ...(await list(s.current.environment_id, q)), notice }));
  }));

  router.post('/authorizations/:id/remove/', forms, action('admin', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const row = ID.test(id) ? await getAuthorization(db, env, id) : undefined;
    if (!row) return notFound(req, res);
    // Removing cannot be undone: the first post asks, the confirmed one acts.
    if (req.body?.confirm !== 'yes') return send(res, 200, confirmRemovePage({ text: textOf(req), session: s, row }));
    if (!(await removeAuthorization(db, env, id, deps.now, deps.outbox))) {
      const text = textOf(req);
      const notice = { text: text.t('auth.conflict', { status: text.t(`auth.status.${row.status}`) }), error: true };
      return send(res, 409, authorizationsPage({ text, session: s, ...(await list(env, listQuery.parse({}))), notice }));
    }
    await audit(req, s, 'authorization_removed', { authorization: id, card: row.card_last4 ?? '' });
    res.redirect(303, '/dashboard/authorizations/?done=remove');
  }));
}
