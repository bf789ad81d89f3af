import type { IRouter } from 'express';
import { z } from 'zod';
import { deleteSavedView, saveView, VIEW_NAME_MAX, type ViewOwner } from '../store/saved-views';
import type { ActiveSession } from './accounts';
import { messagePage } from './account-pages';
import type { Kit } from './kit';
import { ID } from './money-routes';
import { filtersParams, parseTxFilters } from './transaction-filters';

// The payments list's saved views: save the filters in use under a name, delete one. A view
// is the member's own in the current environment; any role keeps views, as any role filters.

const viewName = z
  .string()
  .trim()
  .min(1)
  .max(VIEW_NAME_MAX)
  .regex(/^[^\p{Cc}]*$/u);

const ownerOf = (s: ActiveSession): ViewOwner => ({ environmentId: s.current.environment_id, userId: s.userId });

export function savedViewRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, action, send, textOf, notFound } = kit;

  router.post('/transactions/views/', forms, action('viewer', async (req, res, s) => {
    const text = textOf(req);
    const query = filtersParams(parseTxFilters(req.body as Record<string, unknown>).filters);
    const back = { href: `/dashboard/transactions/?${query}`, label: text.t('views.back') };
    const name = viewName.safeParse((req.body as Record<string, unknown>).name);
    if (!name.success) return send(res, 400, messagePage(text, text.t('views.refused'), text.t('views.badName', { max: VIEW_NAME_MAX }), back));
    if (!(await saveView(db, ownerOf(s), { name: name.data, query }, deps.now()))) return send(res, 409, messagePage(text, text.t('views.refused'), text.t('views.tooMany'), back));
    res.redirect(303, `/dashboard/transactions/?${query}`);
  }));

  router.post('/transactions/views/:id/delete/', forms, action('viewer', async (req, res, s) => {
    const id = String(req.params.id);
    if (!ID.test(id) || !(await deleteSavedView(db, ownerOf(s), id))) return notFound(req, res);
    res.redirect(303, '/dashboard/transactions/');
  }));
}
