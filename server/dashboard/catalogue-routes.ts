import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { getItem, listItems } from '../store/catalogue';
import { type CatalogueGroupChanges, catalogueChanges } from '../commands/catalogue-changes';
import type { ActiveSession } from './accounts';
import { formFields, formInput, formValues, type GroupName, GROUPS } from './catalogue-form';
import { catalogueItemPage, catalogueListPage, catalogueNewPage, itemUrl } from './catalogue-pages';
import type { Kit } from './kit';

// /dashboard/catalogue/: products, plans, taxes, shipping options and coupons. Creating,
// editing, disabling and enabling go through the API's schemas and use cases
// (commands/catalogue-changes.ts), so they are checked by the same rules and emit the same
// events; nothing is deleted from here.

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });
const enabledForm = z.object({ enabled: z.enum(['true', 'false']) });
const NOTICES = { created: 'cat.created', saved: 'cat.saved', enabled: 'cat.enabledNow', disabled: 'cat.disabledNow' } as const;
const noticeQuery = z.object({ done: z.enum(['created', 'saved', 'enabled', 'disabled']) });

function groupRoutes(router: IRouter, kit: Kit, group: GroupName, changes: CatalogueGroupChanges): void {
  const { db, forms, page, action, send, textOf, audit, notFound } = kit;
  const fields = formFields(changes);
  const base = `/catalogue/${group}/`;
  const find = (s: ActiveSession, id: string) => (ID.test(id) ? getItem(db, changes.table, s.current.environment_id, id) : Promise.resolve(undefined));

  const list = page('viewer', async (req, res, s) => {
    const { page: pageNo } = pageQuery.parse(req.query);
    const { count, rows } = await listItems(db, changes.table, s.current.environment_id, {}, { page: pageNo, page_size: PAGE_SIZE });
    const items = rows.map((row) => ({ row, api: changes.toApi(row) }));
    send(res, 200, catalogueListPage({ text: textOf(req), session: s, group, rows: items, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) }));
  });
  router.get(base, list);
  // The first tab is the catalogue's own address.
  if (group === GROUPS[0]) router.get('/catalogue/', list);

  router.get(`${base}new/`, page('admin', async (req, res, s) => {
    send(res, 200, catalogueNewPage({ text: textOf(req), session: s, group, fields, values: formValues(fields, {}), errors: [] }));
  }));

  router.post(base, forms, action('admin', async (req, res, s) => {
    const outcome = await changes.create(s.current.environment_id, formInput(fields, req.body));
    if (!outcome.ok) return send(res, 400, catalogueNewPage({ text: textOf(req), session: s, group, fields, values: formValues(fields, req.body), errors: outcome.errors }));
    await audit(req, s, 'catalogue_created', { group, id: outcome.row.id, name: outcome.row.name });
    res.redirect(303, `${itemUrl(group, outcome.row.id)}?done=created`);
  }));

  async function show(req: Request, res: Response, s: ActiveSession, status: number, errors: { path: string; message: string }[] = [], posted?: Record<string, unknown>) {
    const row = await find(s, String(req.params.id));
    if (!row) return notFound(req, res);
    const text = textOf(req);
    const done = noticeQuery.safeParse(req.query);
    const notice = status === 200 && done.success ? text.t(NOTICES[done.data.done]) : undefined;
    const values = formValues(fields, posted ?? changes.toApi(row));
    send(res, status, catalogueItemPage({ text, session: s, group, row, fields, values, errors, notice }));
  }

  router.get(`${base}:id/`, page('viewer', (req, res, s) => show(req, res, s, 200)));

  router.post(`${base}:id/`, forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const outcome = ID.test(id) ? await changes.change(s.current.environment_id, id, formInput(fields, req.body)) : undefined;
    if (!outcome) return notFound(req, res);
    if (!outcome.ok) return show(req, res, s, 400, outcome.errors, req.body);
    await audit(req, s, 'catalogue_updated', { group, id, name: outcome.row.name });
    res.redirect(303, `${itemUrl(group, id)}?done=saved`);
  }));

  router.post(`${base}:id/enabled/`, forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const form = enabledForm.safeParse(req.body);
    const outcome = ID.test(id) && form.success ? await changes.change(s.current.environment_id, id, { enabled: form.data.enabled === 'true' }) : undefined;
    if (!outcome) return ID.test(id) && !form.success && (await find(s, id)) ? show(req, res, s, 400) : notFound(req, res);
    if (!outcome.ok) return show(req, res, s, 400, outcome.errors);
    const change = outcome.row.enabled ? 'enabled' : 'disabled';
    await audit(req, s, `catalogue_${change}`, { group, id, name: outcome.row.name });
    res.redirect(303, `${itemUrl(group, id)}?done=${change}`);
  }));
}

export function catalogueRoutes(router: IRouter, kit: Kit): void {
  const all = catalogueChanges(kit.deps);
  for (const group of GROUPS) {
    const changes = all.find((g) => g.group === group);
    if (!changes) throw new Error(`the catalogue has no group ${group}`);
    groupRoutes(router, kit, group, changes);
  }
}
