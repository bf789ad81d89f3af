import type { ErrorRequestHandler, IRouter } from 'express';
import type { DocumentAssets } from '../../widget/screen/document';
import type { Deps } from '../deps';
import { challengeRoutes } from './challenge-routes';
import { checkoutContext } from './page';
import { pageRoutes } from './page-routes';
import { notFound } from './page-view';
import { payRoutes } from './pay-routes';
import { providerRoutes } from './provider-routes';

// /pay/{token}/: every route family of the payment page, over the shared page (page.ts)
// and view builders (page-view.ts). The subscription sign-up is declared before these
// (signup-routes.ts).

/**
 * Declared on the app itself, not on a router mounted at /pay: a nested router costs the
 * page, the busiest route, a second dispatch on every view. The app needs strict routing.
 */
export function checkoutRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);
  pageRoutes(router, ctx);
  payRoutes(router, ctx);
  providerRoutes(router, ctx);
  challengeRoutes(router, ctx);
  // A token the router could not percent-decode (`/pay/%ff/`) names no payment: the
  // not-found page, as for any unknown token, rather than the app's error.
  router.use('/pay', ((err, req, res, next) => (err instanceof URIError ? notFound(ctx, req, res) : next(err))) as ErrorRequestHandler);
}
