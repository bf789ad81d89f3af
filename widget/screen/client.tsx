// Browser entry: rebuilds the model from the state the server embedded, hydrates the
// server's markup, then starts the clock. No i18next here (see widget/i18n/translate.ts),
// no hooks and no @preact/signals: an effect of @preact/signals-core renders the screen.
import { effect } from '@preact/signals-core';
import { hydrate, render } from 'preact';
import { createTranslator } from '../i18n/translate';
import { CheckoutScreen, followFocusRequests } from './components/CheckoutScreen';
import { KEPT_PARTS } from './components/parts';
import type { Translator } from '../i18n/messages';
import { createCheckoutModel, type CheckoutDeps, type CheckoutModel } from './model';
import { defaultDeps } from './model-deps';
import { followResults, LazyResult, loadResult, withResult } from './result-loader';
import { APP_ELEMENT_ID, STATE_ELEMENT_ID, type InitialState } from './state';
import './styles.css';

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

const PARTS = { ...KEPT_PARTS, Result: LazyResult };

function hydrateScreen(root: HTMLElement, model: CheckoutModel, i18n: Translator): void {
  const before = typedBeforeHydration(root);
  // The screen renders from its root whenever a signal it read changes: the effect tracks
  // what each (synchronous) render reads. No hooks, no per-component subscriptions.
  let hydrated = false;
  effect(() => {
    const screen = <CheckoutScreen model={model} i18n={i18n} parts={PARTS} />;
    if (hydrated) render(screen, root);
    else hydrate(screen, root);
    hydrated = true;
  });
  followFocusRequests(model);
  followResults(model);
  model.restoreInputs(before.gateway, before.fields);
  model.start({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });

  // The processor's fields (its own chunk and script), only once a gateway that has them is chosen; without them, its redirect.
  model.gateway.subscribe((gateway) => {
    const hosted = gateway?.hosted;
    if (hosted) import('./stripe-element').then((m) => m.mountStripe(model, gateway.id, hosted), () => {});
  });

  // Its own chunk, fetched only when the issuer challenges; without it, the full-page step.
  model.challenge.subscribe((url) => {
    if (url) import('./challenge-dialog').then((m) => m.showChallenge(model, i18n), () => location.assign(url));
  });
}

async function main(): Promise<void> {
  const root = document.getElementById(APP_ELEMENT_ID);
  const state = readState();
  if (!root || !state?.view) return;
  const { view, strings } = state;

  // The translator reads this table as it is at each call: an answer's words join it.
  const table = { ...strings };
  const i18n = createTranslator(view.language, table);
  const deps: Partial<CheckoutDeps> = withResult(defaultDeps(), (words) => Object.assign(table, words));
  // Loaded only in embed mode (with the frame bridge) so the hosted page does not pay for it.
  const embed = view.embed ? await import('./embed-mode').then((m) => m.startEmbedMode(view, deps, i18n)) : null;

  const model = createCheckoutModel(view, deps);
  // A page that opens on a result hydrates with its chunk; without it, the server's
  // markup stays as it is, which is all a result page needs.
  if (model.payable.value || (await loadResult())) hydrateScreen(root, model, i18n);
  embed?.(model);
}

void main();
