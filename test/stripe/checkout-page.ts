import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Books } from './books';
import { actOnSession, type CheckoutAction, checkoutSessionOf } from './checkout-sessions';
import { StripeRefusal } from './errors';
import type { StripeObject } from './objects';

// The double's copy of Stripe Checkout's hosted page, on the double's own origin, at the
// session's `url` (`/c/pay/{id}`): plain HTML forms that a browser, or a test with fetch,
// drives without script. Each button is one thing a customer does on Stripe's page: pay
// with a card that is approved, declined, or asks for 3-D Secure that the customer completes
// or fails (a decline or a failed 3-D Secure keeps the customer on the page, as Stripe
// does), or go back to the shop (the `cancel_url`, the session still open). A payment sends
// the customer to the `success_url`.

const ACTIONS: { action: CheckoutAction | 'cancel'; label: string }[] = [
  { action: 'pay', label: 'Pay (approved card)' },
  { action: 'decline', label: 'Pay (declined card)' },
  { action: '3ds_complete', label: 'Pay with 3-D Secure: complete' },
  { action: '3ds_fail', label: 'Pay with 3-D Secure: fail' },
  { action: 'charge_fail', label: 'Pay (a card whose later charges decline)' },
  { action: 'auth_always', label: 'Pay with a card that always asks for 3-D Secure: complete' },
  { action: 'cancel', label: 'Back to the shop' },
];

/** In `mode=setup` the same buttons save the card instead ("Pay …" reads "Save …"). */
const labelOf = (session: StripeObject, label: string) => (session.mode === 'setup' ? label.replace(/^Pay/, 'Save') : label);

const headingOf = (session: StripeObject) =>
  session.mode === 'setup' ? 'Save a card' : `Pay ${(session.amount_total / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: ServerResponse, status: number, session: StripeObject, message: string | null): void {
  const buttons = session.status === 'open' ? ACTIONS.map((a) => `<form method="post"><input type="hidden" name="action" value="${a.action}"><button type="submit">${labelOf(session, a.label)}</button></form>`).join('\n') : '';
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe Checkout (test double)</title></head><body><main>
<h1>${escape(headingOf(session))}</h1>
${message ? `<p role="alert" id="message">${escape(message)}</p>` : ''}
${session.status === 'open' ? '' : `<p id="status">This Checkout Session is ${escape(session.status)}.</p>`}
${buttons}
</main></body></html>`);
}

const PATH = /^\/c\/pay\/(cs_[A-Za-z0-9_]+)$/;

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

/** Answers a request for the hosted page, or false when it is not one (the API's routes take it). */
export async function checkoutPage(books: Books, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const id = PATH.exec(path)?.[1];
  if (!id) return false;
  let session;
  try {
    session = checkoutSessionOf(books, id);
  } catch (error) {
    if (!(error instanceof StripeRefusal)) throw error;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('No such Checkout Session');
    return true;
  }
  if (req.method !== 'POST') {
    page(res, 200, session, null);
    return true;
  }
  const action = (await formOf(req)).get('action');
  if (action === 'cancel') {
    res.writeHead(303, { location: session.cancel_url ?? session.success_url }).end();
    return true;
  }
  if (!ACTIONS.some((a) => a.action === action)) {
    page(res, 400, session, 'Unknown action.');
    return true;
  }
  const outcome = actOnSession(books, id, action as CheckoutAction);
  if (outcome.done) res.writeHead(303, { location: String(session.success_url).replaceAll('{CHECKOUT_SESSION_ID}', id) }).end();
  else page(res, 200, session, outcome.message);
  return true;
}
