import { Router } from 'express';
import type { Deps } from '../deps';
import { requireAppKeys } from '../http/auth';
import { jsonBody } from '../http/body';
import { buildOpenApi } from '../http/openapi';
import { ApiError, problemHandler, setDocsOrigin } from '../http/problem';
import { apiRateLimit } from '../http/rate-limit';
import type { RequestLog } from '../http/request-log';
import { apiVersion, CURRENT_VERSION } from '../http/versions';
import { baseUrlOf, methodNotAllowed, mountMethodNotAllowed, mountOptions, mountRoutes, type RouteDef } from '../http/route';
import { authorizationRoutes } from './authorizations';
import { balanceRoutes } from './balance';
import { merchantPayoutRoutes } from './merchant-payouts';
import { payoutFileRoutes } from './payout-files';
import { bankStatementRoutes } from './bank-statements';
import { payoutSettingsRoutes } from './payout-settings';
import { processorRoutes } from './processors';
import { settlementReportRoutes } from './settlement-report';
import { brandingRoutes, LOGO_BODY_LIMIT, tooLargeLogo } from './branding';
import { catalogueRoutes } from './catalogue-routes';
import { clientDocumentRoutes, DOCUMENT_BODY_LIMIT } from './client-documents';
import { tooLargeDocument } from '../schemas/document-bytes';
import { clientIbanRoutes } from './client-ibans';
import { clientRoutes } from './clients';
import { disputeRoutes } from './disputes';
import { eventRoutes } from './events';
import { referenceRoutes } from './reference';
import { returnSecretRoutes } from './return-secret';
import { saleRoutes } from './sales';
import { subscriptionRoutes } from './subscriptions';
import { transactionRoutes } from './transactions';
import { transferRoutes } from './transfers';
import { walletRoutes } from './wallets';
import { webhookEndpointRoutes } from './webhook-endpoints';
import { webhookDefs } from './webhooks';

export const apiRoutes = (): RouteDef[] => [
  ...transactionRoutes(),
  ...saleRoutes(),
  ...authorizationRoutes(),
  ...subscriptionRoutes(),
  ...eventRoutes(),
  ...webhookEndpointRoutes(),
  ...catalogueRoutes(),
  ...referenceRoutes(),
  ...clientRoutes(),
  ...clientIbanRoutes(),
  ...clientDocumentRoutes(),
  ...walletRoutes(),
  ...transferRoutes(),
  ...brandingRoutes(),
  ...balanceRoutes(),
  ...payoutSettingsRoutes(),
  ...merchantPayoutRoutes(),
  ...payoutFileRoutes(),
  ...bankStatementRoutes(),
  ...settlementReportRoutes(),
  ...returnSecretRoutes(),
  ...disputeRoutes(),
  ...processorRoutes(),
];

/** The OpenAPI document of the routes, as /v1/openapi.json serves it; `origin` names its server. */
export function openApiDocument(origin?: string, routes = apiRoutes()) {
  return buildOpenApi(routes, { version: CURRENT_VERSION, origin, webhooks: webhookDefs() });
}

/** Everything under /v1: auth on every route, JSON in, problem+json out; each authenticated request into `requestLog`. */
export function apiRouter(deps: Deps, requestLog?: RequestLog): Router {
  const routes = apiRoutes();
  // The document names the absolute server it is served from: PUBLIC_URL, else the origin
  // the request came to (one text per origin, built on first use).
  const documents = new Map<string, string>();
  const openapi = (origin: string) => {
    let text = documents.get(origin);
    if (text === undefined) {
      text = JSON.stringify(openApiDocument(origin, routes));
      if (documents.size < 16) documents.set(origin, text);
    }
    return text;
  };
  const router = Router({ strict: true });
  // First: every problem from here on links to the errors page of the origin asked.
  router.use((req, res, next) => {
    setDocsOrigin(res, baseUrlOf(req, deps));
    next();
  }, apiVersion);

  // Every API path ends with a slash; anything else is sent there, method and body kept.
  // Without a body: every body the API answers is JSON, and Express's redirect writes text.
  router.use((req, res, next) => {
    if (req.path.endsWith('/') || req.path === '/openapi.json') return next();
    const q = req.originalUrl.indexOf('?');
    res.status(308).location(`${req.baseUrl}${req.path}/${q >= 0 ? req.originalUrl.slice(q) : ''}`).end();
  });
  // The contract itself is public, like any API reference.
  router.get('/openapi.json', (req, res) => {
    res.type('application/json').send(openapi(baseUrlOf(req, deps)));
  });
  router.all('/openapi.json', methodNotAllowed(['GET', 'HEAD']));
  // OPTIONS says what a path allows, as the public document does: no key needed.
  mountOptions(router, routes);
  router.use(requireAppKeys(deps));
  // Before the limit: a 429 of a known key is the environment's request too.
  if (requestLog) router.use(requestLog.record);
  router.use(apiRateLimit(deps));
  // Documents (and logos) are the bodies allowed to be large; the parser that reads one first
  // marks the body as read, so the small limit below does not apply to it.
  const documentBody = jsonBody({ limit: DOCUMENT_BODY_LIMIT, strict: false });
  router.post('/client/:clientId/document/', (req, res, next) =>
    documentBody(req, res, (err?: unknown) => next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLargeDocument() : err)),
  );
  // A dispute's evidence carries files under the same rules as a client's documents.
  router.post('/dispute/:id/evidence/', (req, res, next) =>
    documentBody(req, res, (err?: unknown) => next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLargeDocument('files') : err)),
  );
  // A bank statement is sent as a document is, and may be as large.
  router.post('/bank_statement/', (req, res, next) =>
    documentBody(req, res, (err?: unknown) => next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLargeDocument() : err)),
  );
  const logoBody = jsonBody({ limit: LOGO_BODY_LIMIT, strict: false });
  router.post('/environment/branding/logo/', (req, res, next) =>
    logoBody(req, res, (err?: unknown) => next((err as { type?: string } | undefined)?.type === 'entity.too.large' ? tooLargeLogo() : err)),
  );
  // Only the routes that take a body read one: a body sent with a GET, a DELETE or an
  // action without fields has no meaning here and is ignored, so it cannot turn the request
  // into a 400, 413 or 415 the document does not declare for it.
  mountRoutes(router, routes, deps, jsonBody({ limit: deps.config.bodyLimit, strict: false }));
  mountMethodNotAllowed(router, routes);
  router.use((req) => {
    throw new ApiError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  router.use(problemHandler);
  return router;
}
