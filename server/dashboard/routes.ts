import { readFileSync } from 'node:fs';
import express, { type IRouter } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { baseUrlOf } from '../http/route';
import { listApiKeys } from '../store/api-keys';
import { attentionOf, quarterFigures } from '../store/dashboard-figures';
import { countTransactions } from '../store/overview';
import { recentEvents } from '../store/event-list';
import { RECENT_EVENTS } from './recent-activity';
import { resolveLanguage } from '../../widget/i18n/language';
import { resolveSession, signOut, signOutEverywhere, switchEnvironment } from './accounts';
import { NEXT_PATH } from './environment-link';
import { dashboardText } from './i18n';
import { applyDashboardHeaders, clearCookie, cookie, SESSION_COOKIE } from './http';
import { dashboardKit, type Kit } from './kit';
import { disputeRoutes } from './dispute-routes';
import { exportRoutes } from './export-routes';
import { inviteRoutes } from './invite-routes';
import { keysRoutes } from './keys-routes';
import { liveReadinessRoutes } from './live-readiness-routes';
import { processorRoutes } from './processor-routes';
import { securityRoutes } from './security-routes';
import { notificationRoutes } from './notification-routes';
import { moneyRoutes } from './money-routes';
import { savedViewRoutes } from './saved-view-routes';
import { saleRoutes } from './sale-routes';
import { receiptRoutes } from './receipt-routes';
import { noteRoutes } from './note-routes';
import { signInRoutes } from './sign-in-routes';
import { teamRoutes } from './team-routes';
import { webhookRoutes } from './webhook-routes';
import { catalogueRoutes } from './catalogue-routes';
import { clientRoutes } from './client-routes';
import { customerRoutes } from './customer-routes';
import { subscriptionRoutes } from './subscription-routes';
import { authorizationRoutes } from './authorization-routes';
import { walletRoutes } from './wallet-routes';
import { searchRoutes } from './search-routes';
import { balanceRoutes } from './balance-routes';
import { payoutRoutes } from './payout-routes';
import { payoutFileRoutes } from './payout-file-routes';
import { eventRoutes } from './event-routes';
import { requestRoutes } from './request-routes';
import { endpointRoutes } from './endpoint-routes';
import { STYLESHEET } from './layout';
import { setupGaps } from './home-attention';
import { figureDays, foldFigures } from './home-figures';
import { overviewPage } from './pages';
import { settingsRoutes } from './settings-routes';

// /dashboard/: the merchant's control panel. Every route states the least role it needs;
// the check runs on the server before the handler, and every query is scoped to the
// session's environment, so another environment's data is unreachable by construction.
// Each group of pages declares its own routes (*-routes.ts); here are the session's
// own (overview, sign-out, switching environment) and the order they all run in.

const switchForm = z.object({ environment: z.string().max(64), next: z.string().max(500).regex(NEXT_PATH).optional() });

const css = readFileSync(new URL('./dashboard.css', import.meta.url), 'utf8');

/** Signing out (here, everywhere) and switching environment: the session's own actions. */
function sessionRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, forbidden, action, audit } = kit;
  router.post('/sign-out/', forms, action('viewer', async (req, res, s) => {
    await signOut(db, s);
    await audit(req, s, 'signed_out');
    clearCookie(req, res, deps, SESSION_COOKIE);
    res.redirect(303, '/dashboard/sign-in/?signed_out=1');
  }));

  router.post('/sign-out-everywhere/', forms, action('viewer', async (req, res, s) => {
    await signOutEverywhere(db, s);
    await audit(req, s, 'signed_out_everywhere');
    clearCookie(req, res, deps, SESSION_COOKIE);
    res.redirect(303, '/dashboard/sign-in/?signed_out=1');
  }));

  router.post('/environment/', forms, action('viewer', async (req, res, s) => {
    const form = switchForm.safeParse(req.body);
    if (!form.success || !(await switchEnvironment(db, s, form.data.environment))) return forbidden(req, res);
    const moved = s.memberships.find((m) => m.environment_id === form.data.environment)!;
    await audit(req, { ...s, current: moved }, 'environment_switched');
    res.redirect(303, form.data.next ?? '/dashboard/');
  }));
}

/** The Overview: the key to start with, the figures, and what needs attention. */
function homeRoute(router: IRouter, kit: Kit): void {
  const { db, deps, textOf, send, page } = kit;
  router.get('/', page('viewer', async (req, res, s) => {
    const keys = await listApiKeys(db, s.current.environment_id);
    const publicKey = keys.find((k) => !k.revoked_at)?.public_key ?? null;
    const environmentId = s.current.environment_id;
    const now = deps.now();
    const live = s.current.environment_mode === 'live';
    const { timeZone } = textOf(req);
    const [transactions, rows, attention, gaps, activity] = await Promise.all([
      countTransactions(db, environmentId),
      quarterFigures(db, environmentId, figureDays(now, timeZone).since),
      attentionOf(db, environmentId, now),
      setupGaps(deps, db, { id: environmentId, live }, now),
      recentEvents(db, environmentId, RECENT_EVENTS),
    ]);
    const home = { publicKey, transactions, baseUrl: baseUrlOf(req, deps), figures: foldFigures(rows, now, timeZone), attention: { ...attention, ...gaps }, activity };
    send(res, 200, overviewPage({ text: textOf(req), session: s, ...home }));
  }));
}

export function dashboardRouter(deps: Deps): IRouter {
  const router = express.Router({ strict: true });
  const db = deps.database.db;
  const kit = dashboardKit(deps);

  router.get(STYLESHEET.slice('/dashboard'.length), (_req, res) => {
    res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).type('css').send(css);
  });

  router.use(async (req, res, next) => {
    applyDashboardHeaders(res);
    const id = cookie(req, SESSION_COOKIE);
    const session = id ? await resolveSession(db, id, deps.now()) : null;
    if (id && !session) clearCookie(req, res, deps, SESSION_COOKIE);
    // Times in the shop's time zone once signed in; UTC before.
    const text = dashboardText(resolveLanguage(null, req.get('accept-language')), session?.current.environment_time_zone);
    req.dashboard = { text, session };
    next();
  });

  signInRoutes(router, kit);
  inviteRoutes(router, kit);

  sessionRoutes(router, kit);
  homeRoute(router, kit);

  teamRoutes(router, kit);
  keysRoutes(router, kit);
  processorRoutes(router, kit);
  liveReadinessRoutes(router, kit);
  securityRoutes(router, kit);
  notificationRoutes(router, kit);
  moneyRoutes(router, kit);
  savedViewRoutes(router, kit);
  saleRoutes(router, kit);
  receiptRoutes(router, kit);
  noteRoutes(router, kit);
  disputeRoutes(router, kit);
  webhookRoutes(router, kit);
  exportRoutes(router, kit);
  settingsRoutes(router, kit);
  catalogueRoutes(router, kit);
  customerRoutes(router, kit);
  clientRoutes(router, kit);
  subscriptionRoutes(router, kit);
  authorizationRoutes(router, kit);
  walletRoutes(router, kit);
  searchRoutes(router, kit);
  eventRoutes(router, kit);
  requestRoutes(router, kit);
  endpointRoutes(router, kit);
  payoutRoutes(router, kit);
  balanceRoutes(router, kit);
  payoutFileRoutes(router, kit);
  router.use(kit.notFound);
  return router;
}

/** Mounts the dashboard; `/dashboard` without its slash is sent to it. */
export function mountDashboard(app: express.Express, deps: Deps): void {
  app.get('/dashboard', (_req, res) => res.redirect(308, '/dashboard/'));
  app.use('/dashboard', dashboardRouter(deps));
}
