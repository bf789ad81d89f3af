// Browser entry: rebuilds the model from the state the server embedded, hydrates the
// server's markup, then starts the clock. No i18next here (see widget/i18n/translate.ts),
// no hooks and no @preact/signals: an effect of @preact/signals-core renders the screen.
import { effect } from '@preact/signals-core';
import { hydrate, render } from 'preact';
import type { Translator } from '../i18n/messages';
import { createTranslator } from '../i18n/translate';
import { CheckoutScreen, followFocusRequests } from './components/CheckoutScreen';
import { KEPT_PARTS } from './components/parts';
import { createCheckoutModel, type CheckoutDeps, type CheckoutModel } from './model';
import { APP_ELEMENT_ID, STATE_ELEMENT_ID, type InitialState } from './state';
import type { RedirectKind } from './transport';
import type { CheckoutView } from './view';
import type { FrameBridge } from '../embed/frame-bridge';
import type { CheckoutResult } from '../embed/protocol';
import './styles.css';

/**
 * The hook point for embed mode: where a redirect goes when the screen lives in the
 * widget's iframe. A completed or cancelled payment is reported to the merchant's page,
 * with the return/cancel URL, and the page decides where to go; a provider's approval page
 * (redirect-flow gateways) still opens inside the frame.
 */
export function embedRedirectHandler(bridge: FrameBridge, view: CheckoutView): CheckoutDeps['onRedirect'] {
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

function readState(): InitialState {
  const element = document.getElementById(STATE_ELEMENT_ID);
  return JSON.parse(element?.textContent ?? 'null') as InitialState;
}

/** What the customer typed or clicked before the script arrived is kept, not wiped. */
function typedBeforeHydration(root: HTMLElement): { gateway: string | null; fields: Record<string, string> } {
  const form = root.querySelector('form');
  const fields: Record<string, string> = {};
  let gateway: string | null = null;
  if (form) {
    for (const [name, value] of new FormData(form)) {
      if (typeof value !== 'string' || name === 'csrf' || name === 'fields_of') continue;
      if (name === 'gateway') gateway = value;
      else if (value !== '') fields[name] = value;
    }
  }
  return { gateway, fields };
}

async function main(): Promise<void> {
  const root = document.getElementById(APP_ELEMENT_ID);
  const state = readState();
  if (!root || !state?.view) return;
  const { view, strings } = state;

  const deps: Partial<CheckoutDeps> = {};
  let bridge: FrameBridge | null = null;
  if (view.embed) {
    // Loaded only in embed mode so the hosted page does not pay for it.
    const { startFrameBridge } = await import('../embed/frame-bridge');
    bridge = startFrameBridge({ parentOrigin: view.embed.parentOrigin });
    deps.onRedirect = embedRedirectHandler(bridge, view);
  }

  const model = createCheckoutModel(view, deps);
  const before = typedBeforeHydration(root);
  const i18n = createTranslator(view.language, strings);
  // The screen renders from its root whenever a signal it read changes: the effect tracks
  // what each (synchronous) render reads. No hooks, no per-component subscriptions.
  let hydrated = false;
  effect(() => {
    const screen = <CheckoutScreen model={model} i18n={i18n} parts={KEPT_PARTS} />;
    if (hydrated) render(screen, root);
    else hydrate(screen, root);
    hydrated = true;
  });
  followFocusRequests(model);
  model.restoreInputs(before.gateway, before.fields);
  model.start({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });

  // Its own chunk, fetched only when the issuer challenges; without it, the full-page step.
  model.challenge.subscribe((url) => {
    if (url) import('./challenge-dialog').then((m) => m.showChallenge(model, i18n), () => location.assign(url));
  });

  if (bridge) reportToParent(bridge, model, i18n);
}

void main();
