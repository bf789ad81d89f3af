// The screen's model: all of its state and behaviour, for components that read `.value`
// and call actions; they hold no state of their own, so the server render and the hydrated
// tree cannot diverge. The state is model-state.ts, what the customer types model-input.ts,
// what is sent and received model-actions.ts, the running clock model-clock.ts.
import type { ReadonlySignal } from '@preact/signals-core';
import { answerChallenge, applyView, askCancel, cancel, expire, keepPaying, pay } from './model-actions';
import { modelClock } from './model-clock';
import { type CheckoutDeps, defaultDeps } from './model-deps';
import { checkField, restoreInputs, selectGateway, setField } from './model-input';
import { createModelState, type FocusTarget, withExpiry } from './model-state';
import type { ChallengeAnswer, CheckoutAction } from './transport';
import type { CheckoutView } from './view';

export type { CheckoutDeps } from './model-deps';

export type CheckoutModel = ReturnType<typeof createCheckoutModel>;

export function createCheckoutModel(givenView: CheckoutView, overrides: Partial<CheckoutDeps> = {}) {
  const deps: CheckoutDeps = { ...defaultDeps(), ...overrides };
  const m = createModelState(withExpiry(givenView), deps);

  return {
    // state
    view: m.view as ReadonlySignal<CheckoutView>,
    gatewayId: m.gatewayId as ReadonlySignal<string | null>,
    values: m.values as ReadonlySignal<Record<string, string>>,
    fieldErrors: m.fieldErrors as ReadonlySignal<Record<string, string>>,
    message: m.message as ReadonlySignal<string | null>,
    pending: m.pending as ReadonlySignal<CheckoutAction | null>,
    redirecting: m.redirecting as ReadonlySignal<boolean>,
    now: m.now as ReadonlySignal<number>,
    timeZone: m.timeZone as ReadonlySignal<string | undefined>,
    interactive: m.interactive as ReadonlySignal<boolean>,
    focusTarget: m.focusTarget as ReadonlySignal<FocusTarget | null>,
    confirmingCancel: m.confirmingCancel as ReadonlySignal<boolean>,
    challenge: m.challenge as ReadonlySignal<string | null>,
    // derived
    gateway: m.gateway,
    status: m.status,
    payable: m.payable,
    remainingMs: m.remainingMs,
    showCountdown: m.showCountdown,
    minutesLeft: m.minutesLeft,
    locked: m.locked,
    // actions
    selectGateway: (id: string) => selectGateway(m, id),
    returningTo: m.returningTo,
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
