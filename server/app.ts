import express from 'express';
import helmet from 'helmet';
import { apiRouter } from './api';
import type { Deps } from './deps';
import { requestLogger } from './http/logging';

/** Builds the whole service; no I/O here, so tests build one per database and port. */
export function createApp(deps: Deps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.use(requestLogger(deps.log));
  app.use(
    '/v1',
    helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } }),
    apiRouter(deps),
  );
  return app;
}
