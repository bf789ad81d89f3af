import express, { type Router } from 'express';
import type { Deps } from '../deps';
import { acceptNotification } from '../payments/notification';

// The inbound route of processors' notifications: `POST /gateways/{code}/notify`. Not
// authenticated by an API key: the gateway's module verifies each one (a signature over
// the raw body), so the body is read as bytes, untouched. Answers carry no detail: 204
// taken, 400 not verified (the status of every processor notification that does not
// verify, docs/payments.md), 404 no gateway by that code takes them.

export function gatewayNotifyRouter(deps: Deps): Router {
  const router = express.Router();
  router.post('/gateways/:code/notify', express.raw({ type: () => true, limit: deps.config.bodyLimit }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await acceptNotification(deps, req.params.code!, { headers: req.headers, body });
    res.status(outcome === 'accepted' ? 204 : outcome === 'unverified' ? 400 : 404).end();
  });
  return router;
}
