import type { IRouter } from 'express';
import { listApiRequests } from '../store/api-requests';
import type { Kit } from './kit';
import { parseRequestQuery, storeRequestFilters } from './request-filters';
import { requestsPage } from './request-pages';

// /dashboard/requests/: the environment's API request log (http/request-log.ts writes it),
// filtered, a page at a time from the last row shown. Whoever may see the events may see it.

const PAGE_SIZE = 50;

export function requestRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf } = kit;

  router.get('/requests/', page('viewer', async (req, res, s) => {
    const text = textOf(req);
    const { filters, ignored, before } = parseRequestQuery(req.query);
    const { rows, more } = await listApiRequests(db, s.current.environment_id, storeRequestFilters(filters, text.timeZone), { limit: PAGE_SIZE, before });
    send(res, 200, requestsPage({ text, session: s, rows, filters, ignored, later: !!before, more, retentionDays: deps.config.requestLogRetentionDays }));
  }));
}
