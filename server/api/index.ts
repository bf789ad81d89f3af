import express, { Router } from 'express';
import type { Deps } from '../deps';
import { requireAppKeys } from '../http/auth';
import { buildOpenApi } from '../http/openapi';
import { ApiError, problemHandler } from '../http/problem';
import { baseUrlOf, methodNotAllowed, mountMethodNotAllowed, mountRoutes, type RouteDef } from '../http/route';
import { authorizationRoutes } from './authorizations';
import { catalogueRoutes } from './catalogue';
import { clientDocumentRoutes, DOCUMENT_BODY_LIMIT, tooLargeDocument } from './client-documents';
import { clientIbanRoutes } from './client-ibans';
import { clientRoutes } from './clients';
import { eventRoutes } from './events';
import { referenceRoutes } from './reference';
import { saleRoutes } from './sales';
import { subscriptionRoutes } from './subscriptions';
import { transactionRoutes } from './transactions';
import { transferRoutes } from './transfers';
import { walletRoutes } from './wallets';

export const apiRoutes = (): RouteDef[] => [
  ...transactionRoutes(),
  ...saleRoutes(),
  ...authorizationRoutes(),
  ...subscriptionRoutes(),
  ...eventRoutes(),
  ...catalogueRoutes(),
  ...referenceRoutes(),
  ...clientRoutes(),
  ...clientIbanRoutes(),
  ...clientDocumentRoutes(),
  ...walletRoutes(),
  ...transferRoutes(),
];

/** Everything under /v1: auth on every route, JSON in, problem+json out. */
export function apiRouter(deps: Deps): Router {
  const routes = apiRoutes();
  // The document names the absolute server it is served from: PUBLIC_URL, else the origin
  // the request came to (one text per origin, built on first use).
  const documents = new Map<string, string>();
  const openapi = (origin: string) => {
    let text = documents.get(origin);
    if (text === undefined) {
      text = JSON.stringify(buildOpenApi(routes, { version: '1.0.0', origin }));
      if (documents.size < 16) documents.set(origin, text);
    }
    return text;
  };
  const router = Router({ strict: true });

  // Every API path ends with a slash; anything else is sent there, method and body kept.
  router.use((req, res, next) => {
    if (req.path.endsWith('/') || req.path === '/openapi.json') return next();
    const q = req.originalUrl.indexOf('?');
    res.redirect(308, `${req.baseUrl}${req.path}/${q >= 0 ? req.originalUrl.slice(q) : ''}`);
  });
  // The contract itself is public, like any API reference.
  router.get('/openapi.json', (req, res) => {
    res.type('application/json').send(openapi(baseUrlOf(req, deps)));
  });
  router.all('/openapi.json', methodNotAllowed(['GET', 'HEAD']));
  router.use(requireAppKeys(deps));
  // Documents are the one body allowed to be large; the parser that reads one first
  // marks the body as read, so the small limit below does not apply to it.
  const documentBody = express.json({ limit: DOCUMENT_BODY_LIMIT, strict: false });
  router.post('/client/:clientId/document/', (req, res, next) =>
    documentBody(req, res, (err?: { type?: string }) => next(err?.type === 'entity.too.large' ? tooLargeDocument() : err)),
  );
  // Only the methods that take a body read one: a body sent with GET or DELETE has no
  // meaning here and is ignored, so it cannot turn a read into a 400 or a 413.
  const jsonBody = express.json({ limit: deps.config.bodyLimit, strict: false });
  router.use((req, res, next) => (req.method === 'POST' || req.method === 'PATCH' ? jsonBody(req, res, next) : next()));
  mountRoutes(router, routes, deps);
  mountMethodNotAllowed(router, routes);
  router.use((req) => {
    throw new ApiError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  router.use(problemHandler);
  return router;
}
