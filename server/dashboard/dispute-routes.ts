import type { IRouter } from 'express';
import { z } from 'zod';
import { disputesAwaitingResponse, listDisputes } from '../store/disputes';
import { disputesPage } from './dispute-pages';
import type { Kit } from './kit';

// /dashboard/disputes/: the environment's disputes, those needing a response first with
// their deadlines (docs/disputes.md).

const PAGE_SIZE = 20;
/** The most awaiting disputes shown at once; more than this many open at a time is a matter for the API. */
const AWAITING_SHOWN = 100;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });

export function disputeRoutes(router: IRouter, kit: Kit): void {
  const { db, page, send, textOf } = kit;
  router.get('/disputes/', page('viewer', async (req, res, s) => {
    const { page: pageNo } = pageQuery.parse(req.query);
    const environmentId = s.current.environment_id;
    const awaiting = await disputesAwaitingResponse(db, environmentId, AWAITING_SHOWN);
    const { count, items } = await listDisputes(db, environmentId, {}, { page: pageNo, page_size: PAGE_SIZE });
    const all = items.map((d) => d.row);
    send(res, 200, disputesPage({ text: textOf(req), session: s, awaiting, all, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) }));
  }));
}
