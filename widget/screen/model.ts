// The screen's model: all of its state and behaviour, for components that read `.value`
// and call actions; they hold no state of their own, so the server render and the hydrated
// tree cannot diverge. The state is model-state.ts, what the customer types model-input.ts,
// what is sent and received model-actions.ts, the running clock model-clock.ts.
import type { ReadonlySignal } from '@preact/signals-core';
import { answerChallenge, applyView, askCancel, cancel, expire, keepPaying, pay } from './model-actions';
import { modelClock } from './model-clock';
import { type CheckoutDeps, defaultDeps } from './model-deps';
import { checkField, restoreInputs, selectGateway, setField } from './model-input';
import { createModelState, type ModelState, withExpiry } from './model-state';
import type { ChallengeAnswer } from './transport';
import type { CheckoutView } from './view';

export type { CheckoutDeps } from './model-deps';

export type CheckoutModel = ReturnType<typeof createCheckoutModel>;

/** The state's signals components may read; the model's actions are what changes them. */
type StateKey =
  | 'view'
  | 'gatewayId'
  | 'values'
  | 'fieldErrors'
  | 'message'
  | 'pending'
  | 'redirecting'
  | 'returningTo'
  | 'now'
  | 'timeZone'
  | 'interactive'
  | 'focusTarget'
  | 'confirmingCancel'
  | 'challenge'
  | 'hosted'
  | 'gateway'
  | 'status'
  | 'payable'
  | 'remainingMs'
  | 'showCountdown'
  | 'minutesLeft'
  | 'locked';
type ReadonlyState = { readonly [K in StateKey]: ReadonlySignal<ModelState[K]['value']> };

export function createCheckoutModel(givenView: CheckoutView, overrides: Partial<CheckoutDeps> = {}) {
  const deps: CheckoutDeps = { ...defaultDeps(), ...overrides };
  const m = createModelState(withExpiry(givenView), deps);

  return {
    // The state itself, not a copy of each signal's name (issue 29: the page's weight): the
    // rest of it (deps, the clock's helpers) is there too, out of the type.
    ...(m as ReadonlyState),
    selectGateway: (id: string) => selectGateway(m, id),
    setField: (name: string, value: string) => setField(m, name, value),
    checkField: (name: string) => checkField(m, name),
    pay: () => pay(m),
    answerChallenge: (answer: ChallengeAnswer) => answerChallenge(m, answer),
    askCancel: () => askCancel(m),
    keepPaying: () => keepPaying(m),
    cancel: () => cancel(m),
    expire: () => expire(m),
    applyView: (view: CheckoutView) => applyView(m, view),
    start: modelClock(m),
    restoreInputs: (gatewayChoice: string | null, typed: Record<string, string>) => restoreInputs(m, gatewayChoice, typed),
  };
}
