import type { IRouter } from 'express';
import type { Kit } from './kit';
import { readinessOf } from './live-readiness';
import { liveReadinessPage } from './live-readiness-page';

// /dashboard/live-readiness/: the checklist of what a live environment needs before it
// takes real payments (docs/dashboard.md#live-readiness). Read-only, for every member: each
// item links to the page that fixes it (processors for owners, settings for admins).

export function liveReadinessRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf } = kit;
  router.get('/live-readiness/', page('viewer', async (req, res, s) => {
    const readiness = await readinessOf(db, s.current.environment_id, deps.now());
    send(res, 200, liveReadinessPage({ text: textOf(req), session: s, readiness }));
  }));
}
