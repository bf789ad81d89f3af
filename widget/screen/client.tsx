// Browser entry: rebuilds the model from the state the server embedded, hydrates the
// server's markup, then starts the clock. No i18next here (see widget/i18n/translate.ts).
import { hydrate } from 'preact';
import { createTranslator } from '../i18n/translate';
import { CheckoutScreen } from './components/CheckoutScreen';
import { createCheckoutModel, type CheckoutDeps } from './model';
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
    if (kind === 'provider') return window.location.assign(location);
    const status = kind === 'completed' ? 'D' : 'C';
    const result = embedResult(view, status, location);
    if (kind === 'completed') bridge.completed(result);
    else bridge.cancelled(result);
  };
}

function embedResult(view: CheckoutView, status: 'D' | 'C', redirect: string | null): CheckoutResult {
  return { transaction_id: view.transactionId ?? '', status, order_id: view.orderId, redirect };
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
      if (typeof value !== 'string' || name === 'csrf') continue;
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
  hydrate(<CheckoutScreen model={model} i18n={i18n} />, root);
  model.restoreInputs(before.gateway, before.fields);
  model.start({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });

  if (bridge) {
    const frame = bridge;
    // A result shown in place (no return URL) is reported too, once per state.
    let reported = view.status;
    model.view.subscribe((current) => {
      if (current.status === reported) return;
      reported = current.status;
      if (current.status === 'paid') frame.completed(embedResult(current, 'D', null));
      else if (current.status === 'cancelled') frame.cancelled(embedResult(current, 'C', null));
    });
    frame.ready();
  }
}

void main();
