import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import helmet from 'helmet';
import { apiRouter } from './api';
import { assetsRouter, loadScreenAssets } from './checkout/assets';
import { checkoutRoutes } from './checkout/routes';
import { signupRoutes } from './checkout/signup-routes';
import type { Deps } from './deps';
import { demoPage } from './demo/shop';
import { referenceRouter } from './docs/reference-page';
import { withRequestLogging } from './http/logging';
import { baseUrlOf } from './http/route';

/** Builds the whole service as a server's request listener; no I/O here. */
export function createApp(deps: Deps): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  // '/pay/{token}/' and '/pay/{token}' are different routes (the second redirects).
  app.enable('strict routing');
  // First: the payment page is the busiest route, and every layer before it costs a match.
  signupRoutes(app, deps, loadScreenAssets);
  checkoutRoutes(app, deps, loadScreenAssets);
  app.use(
    '/v1',
    helmet({
      contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
    }),
    apiRouter(deps),
  );
  app.use(assetsRouter());
  app.use(referenceRouter());
  app.get('/demo', (req, res) => res.redirect(308, `/demo/${req.url.slice(req.path.length)}`));
  app.get('/demo/', async (req, res, next) => {
    const page = await demoPage(deps, { baseUrl: baseUrlOf(req, deps), paid: req.query.paid === '1', cancelled: req.query.cancelled === '1' });
    if (!page) return next();
    res.set(page.headers).type('html').send(page.html);
  });
  app.use((_req, res) => {
    res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
  });
  // Never Express's default handler: it would print stack traces outside production.
  app.use(((err, req, res, _next) => {
    // express.static reports a missing asset as an error carrying status 404.
    if ((err as { status?: number }).status === 404 && !res.headersSent) {
      return res.status(404).set('X-Content-Type-Options', 'nosniff').type('text/plain').send('Not found');
    }
    req.log?.error({ err }, 'unhandled error');
    if (res.headersSent) return res.end();
    res.status(500).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(`Something went wrong (request ${req.id}).`);
  }) as ErrorRequestHandler);
  return withRequestLogging(app, deps.log);
}
