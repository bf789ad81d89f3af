import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Books } from './books';
import { answerChallenge } from './payment-intents';

// The double's stand-in for the issuer's 3-D Secure page that a PaymentIntent's
// `next_action.redirect_to_url.url` sends the customer to (`/test/3ds/{id}`, on the
// double's own origin; Stripe's is on hooks.stripe.com). Plain HTML forms, no script: the
// customer completes or fails the authentication, and is sent to the `return_url` with the
// query Stripe adds (`payment_intent`, `payment_intent_client_secret`, `redirect_status`),
// which a careful integration reads nothing from but the fact that the customer is back.
// A payment that succeeds sends `payment_intent.succeeded` to the registered endpoints.

const PATH = /^\/test\/3ds\/(pi_[A-Za-z0-9_]+)$/;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, heading: string, open: boolean): void {
  const buttons = open
    ? ['complete', 'fail'].map((a) => `<form method="post"><input type="hidden" name="action" value="${a}"><button type="submit">${a === 'complete' ? 'Complete authentication' : 'Fail authentication'}</button></form>`).join('\n')
    : '';
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>3-D Secure (test double)</title></head><body><main>
<h1>${escape(heading)}</h1>
${buttons}
</main></body></html>`);
}

async function actionOf(req: IncomingMessage): Promise<string | null> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text).get('action');
}

/** Answers a request for the authentication page, or false when it is not one. */
export async function authenticationPage(books: Books, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const id = PATH.exec(path)?.[1];
  if (!id) return false;
  const pi = books.paymentIntents.get(id);
  if (!pi) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('No such PaymentIntent');
    return true;
  }
  const returnUrl: string | undefined = pi.next_action?.redirect_to_url?.return_url;
  const open = pi.status === 'requires_action' && returnUrl !== undefined;
  if (req.method !== 'POST' || !open) {
    page(res, open ? 200 : 409, open ? `Authenticate a payment of ${(pi.amount / 100).toFixed(2)} ${String(pi.currency).toUpperCase()}` : `This PaymentIntent is ${pi.status}.`, open);
    return true;
  }
  const action = await actionOf(req);
  if (action !== 'complete' && action !== 'fail') {
    page(res, 400, 'Unknown action.', true);
    return true;
  }
  answerChallenge(books, id, action === 'complete');
  // What Stripe sends when it succeeds (delivered once the customer is on their way back).
  if (pi.status === 'succeeded') books.outbox.push({ type: 'payment_intent.succeeded', object: structuredClone(pi) });
  const back = new URL(returnUrl);
  back.searchParams.set('payment_intent', id);
  back.searchParams.set('payment_intent_client_secret', pi.client_secret);
  back.searchParams.set('redirect_status', action === 'complete' ? 'succeeded' : 'failed');
  res.writeHead(303, { location: back.toString() }).end();
  return true;
}
