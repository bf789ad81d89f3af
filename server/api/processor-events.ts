import express, { type Router } from 'express';
import type { Deps } from '../deps';
import { acceptProcessorEvent } from '../payments/processor-events';

// The inbound route of a connected processor's webhook deliveries: `POST
// /processors/{id}/events/`, the `webhook_url` the processors API gives (at Stripe: the
// endpoint registered under Developers → Webhooks). Not authenticated by an API key: the
// processor's gateway verifies each delivery under that processor's signing secret, so the
// body is read as bytes, untouched. Answers carry no detail: 204 taken (a repeat too), 400
// refused with nothing recorded (the status of every processor notification that does not
// verify, docs/payments.md), 503 when the processor could not be asked to read the object
// again (it delivers again).

export function processorEventsRouter(deps: Deps): Router {
  const router = express.Router();
  router.post('/processors/:id/events/', express.raw({ type: () => true, limit: deps.config.bodyLimit }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const header = req.headers['stripe-signature'];
    const outcome = await acceptProcessorEvent(deps, req.params.id!, { headers: req.headers, body, signature: typeof header === 'string' ? header : undefined });
    res.status(outcome === 'accepted' ? 204 : outcome === 'refused' ? 400 : 503).end();
  });
  return router;
}
