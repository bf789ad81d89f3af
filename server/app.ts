import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { apiRouter, openApiDocument } from './api';
import { gatewayNotifyRouter } from './api/gateway-notify';
import { processorEventsRouter } from './api/processor-events';
import { assetsRouter, loadScreenAssets } from './checkout/assets';
import { brandRouter } from './checkout/brand';
import { addressLimit } from './checkout/limits';
import { checkoutRoutes } from './checkout/routes';
import { confirmRoutes } from './checkout/confirm-routes';
import { saveRoutes } from './checkout/save-routes';
import { signupRoutes } from './checkout/signup-routes';
import type { Deps } from './deps';
import { mountDashboard } from './dashboard/routes';
import { DEMO_COOKIE, demoPage } from './demo/shop';
import { docsRouter } from './docs/router';
import { withRequestLogging } from './http/logging';
import type { RequestLog } from './http/request-log';
import { UNAVAILABLE_RETRY_AFTER_S } from './http/problem';
import { baseUrlOf } from './http/route';
import { SAVE_TOKEN_PREFIX } from './store/authorizations';
import { isDatabaseUnavailable } from './store/errors';
import { SIGNUP_TOKEN_PREFIX } from './store/subscriptions';

/** Operators' routes answered before the app and outside the access log (server/ops/). */
export interface OpsRoutes {
  /** /health/live and /health/ready. */
  health: RequestListener;
  /** GET /metrics and the observation of every other request; absent when metrics are off. */
  metrics?: { handler: RequestListener; observe(req: IncomingMessage, res: ServerResponse, startedAt: number): void };
}

const KEPT_ORDERS = new RegExp(`(?:^|;\\s*)${DEMO_COOKIE}=([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)`);

/** The demo shop, rate-limited per client address: each visit creates transactions. */
function mountDemo(app: Express, deps: Deps) {
  app.get('/demo', (req, res) => res.redirect(308, `/demo/${req.url.slice(req.path.length)}`));
  app.get('/demo/', addressLimit(deps, 'demo', loadScreenAssets), async (req, res, next) => {
    const kept = KEPT_ORDERS.exec(req.get('cookie') ?? '');
    const baseUrl = baseUrlOf(req, deps);
    const visit = { baseUrl, url: `${baseUrl}${req.originalUrl}`, paid: req.query.paid === '1', cancelled: req.query.cancelled === '1', kept: kept ? [kept[1]!, kept[2]!] : [] };
    const page = await demoPage(deps, visit);
    if (!page) return next();
    res.set(page.headers).type('html').send(page.html);
  });
}

/** The paths of the hosted pages that share `/pay/` with the payment page: by their tokens' prefixes, and the confirm links'. */
const OTHER_HOSTED = new RegExp(`^/pay/(?:${SAVE_TOKEN_PREFIX}|${SIGNUP_TOKEN_PREFIX}|confirm/)`);

/**
 * The save-card, sign-up and confirm pages, in one layer that only their paths enter: a
 * payment page's request is matched against none of their thirteen routes (with them in
 * front of it, a view took 4–7 % more CPU, docs/performance-changelog.md). The same routes in the same
 * order: a request they let go of goes on to the payment page's.
 */
function otherHostedPages(deps: Deps): RequestHandler {
  const pages = express.Router({ strict: true });
  confirmRoutes(pages, deps, loadScreenAssets);
  saveRoutes(pages, deps, loadScreenAssets);
  signupRoutes(pages, deps, loadScreenAssets);
  return (req, res, next) => (OTHER_HOSTED.test(req.path) ? pages(req, res, next) : next());
}

const CLIENT_ERRORS: Record<number, string> = { 404: 'Not found', 413: 'Request body too large', 415: 'Unsupported media type' };

/**
 * The status of an error the request caused: a path segment the router could not
 * percent-decode names nothing (404), a file asked for does not exist (express.static's
 * 404), a body that cannot be read is its parser's 4xx. Undefined for our own failures.
 */
function clientErrorStatus(err: unknown): number | undefined {
  if (err instanceof URIError) return 404;
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** Builds the whole service as a server's request listener; no I/O here (`requestLog` writes later, on its own). */
export function createApp(deps: Deps, ops?: OpsRoutes, requestLog?: RequestLog): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  // '/pay/{token}/' and '/pay/{token}' are different routes (the second redirects).
  app.enable('strict routing');
  // First: the payment page is the busiest route, and every layer before it costs a match.
  app.use(otherHostedPages(deps));
  checkoutRoutes(app, deps, loadScreenAssets);
  app.use(
    '/v1',
    helmet({
      contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
    }),
    apiRouter(deps, requestLog),
  );
  app.use(gatewayNotifyRouter(deps));
  app.use(processorEventsRouter(deps));
  mountDashboard(app, deps);
  app.use(assetsRouter());
  app.use(brandRouter(deps));
  app.use(docsRouter({ openapi: () => openApiDocument() }));
  if (deps.config.demo !== 'off') mountDemo(app, deps);
  app.use((_req, res) => {
    res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
  });
  // Never Express's default handler: it would print stack traces outside production.
  app.use(((err, req, res, _next) => {
    const status = clientErrorStatus(err);
    if (status && !res.headersSent) {
      return res.status(status).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(CLIENT_ERRORS[status] ?? 'Bad request');
    }
    if (isDatabaseUnavailable(err)) {
      req.log?.warn({ err }, 'database unavailable');
      if (res.headersSent) return res.end();
      return res
        .status(503)
        .set({ 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S), 'X-Content-Type-Options': 'nosniff' })
        .type('text/plain')
        .send('The service is briefly unavailable. Please try again in a few seconds.');
    }
    req.log?.error({ err }, 'unhandled error');
    if (res.headersSent) return res.end();
    res.status(500).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(`Something went wrong (request ${req.id}).`);
  }) as ErrorRequestHandler);
  const logged = withRequestLogging(app, deps.log);
  if (!ops) return logged;
  // Probes and scrapes come every few seconds: a line each would drown the log.
  const metrics = ops.metrics;
  return (req, res) => {
    if (req.url?.startsWith('/health/')) return ops.health(req, res);
    if (!metrics) return logged(req, res);
    if (req.url === '/metrics' || req.url?.startsWith('/metrics?')) return metrics.handler(req, res);
    const startedAt = performance.now();
    res.once('finish', () => metrics.observe(req, res, startedAt));
    logged(req, res);
  };
}
