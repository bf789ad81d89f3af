// Embed mode: the screen inside the widget's iframe. Loaded by client.tsx only when the
// view says so, with the frame bridge, so the hosted page does not pay for either.
import type { Translator } from '../i18n/messages';
import { type FrameBridge, startFrameBridge } from '../embed/frame-bridge';
import type { CheckoutResult } from '../embed/protocol';
import type { CheckoutDeps, CheckoutModel } from './model';
import type { RedirectKind } from './transport';
import type { CheckoutView } from './view';

/**
 * The hook point for embed mode: where a redirect goes when the screen lives in the
 * widget's iframe. A completed or cancelled payment is reported to the merchant's page,
 * with the return/cancel URL, and the page decides where to go; a provider's approval page
 * (redirect-flow gateways) still opens inside the frame.
 */
function embedRedirectHandler(bridge: FrameBridge, view: CheckoutView): CheckoutDeps['onRedirect'] {
  return (location: string, kind: RedirectKind) => {
    // Without the challenge dialog (its chunk failed to load), its full-page step opens in the frame.
    if (kind === 'provider' || kind === 'challenge') return window.location.assign(location);
    const status = kind === 'completed' ? 'D' : 'C';
    const result = embedResult(view, status, location);
    if (kind === 'completed') bridge.completed(result);
    else bridge.cancelled(result);
  };
}

/** `redirect` defaults to the transaction's return_url (paid) or cancel_url (cancelled). */
function embedResult(
  view: CheckoutView,
  status: 'D' | 'C',
  redirect = (status === 'D' ? view.embed?.returnUrl : view.embed?.cancelUrl) ?? null,
): CheckoutResult {
  return { transaction_id: view.transactionId ?? '', status, order_id: view.orderId, redirect };
}

/** The message key as a protocol code: error.insufficientFunds → insufficient_funds. */
const errorCode = (key: string) => key.replace(/^error\./, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Tells the merchant's page what happens in the frame: ready, the result of the customer's
 * pay or cancel (reported once per change of state), and every error the screen shows.
 */
function reportToParent(bridge: FrameBridge, model: CheckoutModel, i18n: Translator): void {
  const report = (current: CheckoutView) => {
    if (current.status === 'paid') bridge.completed(embedResult(current, 'D'));
    else if (current.status === 'cancelled') bridge.cancelled(embedResult(current, 'C'));
  };
  // An expired link can no longer be paid, whenever it expired: the merchant needs a new transaction.
  const expired = () => bridge.error({ code: 'expired', message: i18n.t('status.expired.title') });
  const initial = model.view.value;
  let reported = initial.status;
  bridge.ready(initial.language);
  // A server-rendered result of the customer's own action (form posted before the script
  // ran, or back from a redirect gateway); any other paid page loads silently.
  if (initial.embed?.justFinished) report(initial);
  if (initial.status === 'expired') expired();
  model.view.subscribe((current) => {
    if (current.status === reported) return;
    reported = current.status;
    if (current.status === 'expired') expired();
    else report(current);
  });
  model.message.subscribe((key) => {
    if (key) bridge.error({ code: errorCode(key), message: i18n.t(i18n.has(key) ? key : 'error.generic') });
  });
}

/**
 * Starts the bridge to the merchant's page and routes redirects through it (into `deps`);
 * returns what reports the screen to the parent once its model exists.
 */
export function startEmbedMode(view: CheckoutView, deps: Partial<CheckoutDeps>, i18n: Translator): (model: CheckoutModel) => void {
  const bridge = startFrameBridge({ parentOrigin: view.embed!.parentOrigin, words: { title: i18n.t('overlay.title'), close: i18n.t('overlay.close') } });
  deps.onRedirect = embedRedirectHandler(bridge, view);
  return (model) => reportToParent(bridge, model, i18n);
}
