// All of the screen's state and behaviour. Components read `.value` and call actions; they
// hold no state of their own, so the server render and the hydrated tree cannot diverge.
import { batch, computed, signal, type ReadonlySignal } from '@preact/signals';
import { validateFields, validateField, type ValidationContext } from '../fields/card';
import {
  postCheckout,
  TransportError,
  type CheckoutAction,
  type CheckoutOutcome,
  type CheckoutRequest,
  type RedirectKind,
} from './transport';
import type { CheckoutView, GatewayOption, ScreenStatus } from './view';

/** Below this much time left the screen shows a live countdown. */
export const COUNTDOWN_FROM_MS = 10 * 60 * 1000;
// setTimeout overflows above 2^31 - 1 ms (about 24.8 days) and fires at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

export type DisplayStatus = ScreenStatus | 'processing';

/**
 * Where keyboard focus should go after a result the customer did not cause directly; the
 * field name `gateway` means the payment method radios.
 */
export type FocusRequest = { kind: 'field'; name: string } | { kind: 'alert' } | { kind: 'status' } | { kind: 'confirm' } | { kind: 'cancel' };
/** `seq` makes a repeated request (the same field twice) a new value that subscribers see. */
export type FocusTarget = FocusRequest & { seq: number };

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CheckoutDeps {
  /** Sends an action to the server; by default a JSON POST to the page's own URL. */
  submit: (request: CheckoutRequest, csrf: string) => Promise<CheckoutOutcome>;
  /**
   * Leaves the page. Embed mode passes its own so the frame bridge can tell the merchant's
   * page instead of navigating the iframe.
   */
  onRedirect: (location: string, kind: RedirectKind) => void;
  /** The client clock (ms); corrected by `view.serverNow` before use. */
  now: () => number;
  timers: Timers;
}

function defaultDeps(): CheckoutDeps {
  return {
    submit: (request, csrf) =>
      postCheckout(fetch.bind(globalThis), location.pathname + location.search, csrf, request),
    onRedirect: (target) => location.assign(target),
    now: () => Date.now(),
    timers: {
      setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  };
}

export type CheckoutModel = ReturnType<typeof createCheckoutModel>;

/**
 * A link whose moment has passed is expired even if the server has not swept it yet; the
 * server and the browser apply the same rule to the same data, so their markup agrees.
 */
function withExpiry(view: CheckoutView): CheckoutView {
  const open = view.status === 'pending' || view.status === 'declined';
  return open && Date.parse(view.expiresAt) <= Date.parse(view.serverNow) ? { ...view, status: 'expired', error: null } : view;
}

export function createCheckoutModel(givenView: CheckoutView, overrides: Partial<CheckoutDeps> = {}) {
  const initialView = withExpiry(givenView);
  // Defaults touch `location` and `fetch` only when called, so the server can build a model.
  const deps: CheckoutDeps = { ...defaultDeps(), ...overrides };

  const view = signal(initialView);
  /** The action in flight, if any; at most one at a time. */
  const pending = signal<CheckoutAction | null>(null);
  const redirecting = signal(false);
  const gatewayId = signal<string | null>(initialView.selectedGateway);
  // A failed form post (JavaScript off) sends back what may be shown again.
  const values = signal<Record<string, string>>({ ...initialView.values });
  /** The second step of cancelling: the screen asks before ending the payment for good. */
  const confirmingCancel = signal(initialView.confirmCancel ?? false);
  const fieldErrors = signal<Record<string, string>>({ ...initialView.error?.fields });
  const message = signal<string | null>(initialView.error?.message || null);
  // Starts at the server's clock so the first client render matches the server's markup.
  const now = signal(Date.parse(initialView.serverNow));
  /** Undefined means the browser's own zone; the server renders UTC. */
  const timeZone = signal<string | undefined>('UTC');
  /** True once the browser has taken over the server's markup. */
  const interactive = signal(false);
  const focusTarget = signal<FocusTarget | null>(null);

  let clockSkew = deps.now() - now.value;
  let focusSeq = 0;

  const gateway: ReadonlySignal<GatewayOption | null> = computed(
    () => view.value.gateways.find((option) => option.id === gatewayId.value) ?? null,
  );
  const status: ReadonlySignal<DisplayStatus> = computed(() => (pending.value ? 'processing' : view.value.status));
  /** The form is shown while the transaction can still be paid. */
  const payable = computed(() => status.value === 'pending' || status.value === 'declined' || status.value === 'processing');
  const remainingMs = computed(() => Math.max(0, Date.parse(view.value.expiresAt) - now.value));
  const showCountdown = computed(() => payable.value && remainingMs.value < COUNTDOWN_FROM_MS);
  /** Whole minutes left, rounded up: changes once a minute, which is what gets announced. */
  const minutesLeft = computed(() => Math.ceil(remainingMs.value / 60_000));
  /** After too many declines, until the server's retry time: Pay stays disabled. */
  const locked = computed(() => {
    const at = view.value.retryAt;
    return !!at && now.value < Date.parse(at);
  });

  function requestFocus(target: FocusRequest): void {
    focusTarget.value = { ...target, seq: ++focusSeq };
  }

  function validationContext(): ValidationContext {
    const numberField = gateway.value?.fields.find((field) => field.validate === 'card-number');
    return { now: now.value, cardNumber: numberField ? values.value[numberField.name] : undefined };
  }

  function clearError(name: string): void {
    if (!(name in fieldErrors.value)) return;
    const { [name]: _, ...rest } = fieldErrors.value;
    fieldErrors.value = rest;
  }

  function selectGateway(id: string): void {
    if (pending.value || id === gatewayId.value) return;
    batch(() => {
      gatewayId.value = id;
      // Errors belonged to the previous method's fields.
      fieldErrors.value = {};
      message.value = null;
    });
  }

  function setField(name: string, value: string): void {
    batch(() => {
      values.value = { ...values.value, [name]: value };
      // An error disappears as soon as the customer starts fixing it, never appears mid-typing.
      clearError(name);
    });
  }

  /** On leaving a field: judge what was typed, but an untouched empty field is not an error yet. */
  function checkField(name: string): void {
    const field = gateway.value?.fields.find((candidate) => candidate.name === name);
    const value = values.value[name] ?? '';
    if (!field || value.trim() === '') return;
    const error = validateField(field.validate, value, validationContext());
    if (error) fieldErrors.value = { ...fieldErrors.value, [name]: error };
  }

  function applyView(given: CheckoutView): void {
    const next = withExpiry(given);
    const statusChanged = next.status !== view.value.status;
    batch(() => {
      clockSkew = deps.now() - Date.parse(next.serverNow);
      view.value = next;
      now.value = deps.now() - clockSkew;
      if (next.selectedGateway && next.gateways.some((option) => option.id === next.selectedGateway)) {
        gatewayId.value = next.selectedGateway;
      }
      fieldErrors.value = { ...next.error?.fields };
      message.value = next.error?.message || null;
      confirmingCancel.value = next.confirmCancel ?? false;
      // Card details are not kept in memory once they can no longer be used.
      if (next.status !== 'pending' && next.status !== 'declined') values.value = {};
    });
    const firstInvalid = Object.keys(fieldErrors.value)[0];
    const open = next.status === 'pending' || next.status === 'declined';
    // A closed payment shows only its result, whatever error text came with it.
    if (!open) {
      if (statusChanged) requestFocus({ kind: 'status' });
    } else if (message.value || next.status === 'declined') requestFocus({ kind: 'alert' });
    else if (firstInvalid) requestFocus({ kind: 'field', name: firstInvalid });
  }

  function expire(): void {
    if (pending.value || !payable.value) return;
    applyView({ ...view.value, status: 'expired', error: null, serverNow: new Date(now.value).toISOString() });
  }

  async function send(action: CheckoutAction, fields: Record<string, string>): Promise<void> {
    pending.value = action;
    message.value = null;
    let outcome: CheckoutOutcome;
    try {
      outcome = await deps.submit({ action, gateway: gatewayId.value, fields }, view.value.csrf);
    } catch (error) {
      batch(() => {
        pending.value = null;
        message.value = error instanceof TransportError ? 'error.network' : 'error.generic';
      });
      requestFocus({ kind: 'alert' });
      return;
    }
    if (outcome.outcome === 'redirect') {
      // Stay in "processing" while the browser leaves, so nothing can be sent twice.
      redirecting.value = true;
      const kind: RedirectKind =
        outcome.kind ?? (action === 'cancel' ? 'cancelled' : gateway.value?.flow === 'redirect' ? 'provider' : 'completed');
      deps.onRedirect(outcome.location, kind);
      return;
    }
    pending.value = null;
    applyView(outcome.view);
  }

  async function pay(): Promise<void> {
    if (pending.value || !payable.value) return;
    tick();
    if (locked.value) return;
    if (remainingMs.value <= 0) return expire();
    const chosen = gateway.value;
    if (!chosen) {
      batch(() => {
        fieldErrors.value = { gateway: 'error.gatewayRequired' };
        message.value = null;
      });
      requestFocus({ kind: 'field', name: 'gateway' });
      return;
    }
    const fields: Record<string, string> = {};
    if (chosen.flow === 'form') {
      for (const field of chosen.fields) fields[field.name] = values.value[field.name] ?? '';
      const errors = validateFields(chosen.fields, fields, now.value);
      const firstInvalid = chosen.fields.find((field) => field.name in errors);
      if (firstInvalid) {
        batch(() => {
          fieldErrors.value = errors;
          message.value = null;
        });
        requestFocus({ kind: 'field', name: firstInvalid.name });
        return;
      }
    }
    await send('pay', fields);
  }

  /** The first step of cancelling: nothing is sent, the screen asks to confirm. */
  function askCancel(): void {
    if (pending.value || !payable.value) return;
    confirmingCancel.value = true;
    requestFocus({ kind: 'confirm' });
  }

  function keepPaying(): void {
    confirmingCancel.value = false;
    requestFocus({ kind: 'cancel' });
  }

  /** Ends the payment for good; only ever called once the customer has confirmed. */
  async function cancel(): Promise<void> {
    if (pending.value || !payable.value) return;
    await send('cancel', {});
  }

  let timer: unknown = null;
  let unlockTimer: unknown = null;

  // Wakes when the wait after too many declines is over, so Pay comes back by itself.
  function scheduleUnlock(): void {
    if (unlockTimer !== null) deps.timers.clearTimeout(unlockTimer);
    unlockTimer = null;
    const at = view.value.retryAt ? Date.parse(view.value.retryAt) : NaN;
    if (!(at > now.value)) return;
    unlockTimer = deps.timers.setTimeout(() => {
      unlockTimer = null;
      tick();
      scheduleUnlock();
    }, Math.min(Math.max(at - now.value, 50), MAX_TIMER_MS));
  }

  function tick(): void {
    now.value = deps.now() - clockSkew;
  }

  // Wakes once a second only in the last ten minutes; before that, once, when they begin.
  function schedule(): void {
    if (timer !== null) deps.timers.clearTimeout(timer);
    timer = null;
    if (!payable.value) return;
    const remaining = remainingMs.value;
    const delay = remaining <= COUNTDOWN_FROM_MS ? 1000 - (now.value % 1000 || 0) : remaining - COUNTDOWN_FROM_MS;
    timer = deps.timers.setTimeout(() => {
      timer = null;
      tick();
      if (remainingMs.value <= 0) expire();
      schedule();
    }, Math.min(Math.max(delay, 50), MAX_TIMER_MS));
  }

  /**
   * Called once the browser has hydrated: from here on the clock runs, dates show in the
   * customer's zone, and markup may differ from the server's. Returns a stop function.
   */
  function start(options: { timeZone?: string } = {}): () => void {
    batch(() => {
      interactive.value = true;
      timeZone.value = options.timeZone;
      tick();
    });
    const unsubscribe = view.subscribe(() => {
      schedule();
      scheduleUnlock();
    });
    if (remainingMs.value <= 0) expire();
    return () => {
      unsubscribe();
      for (const handle of [timer, unlockTimer]) if (handle !== null) deps.timers.clearTimeout(handle);
      timer = unlockTimer = null;
    };
  }

  /** Seeds what the customer typed or picked before the script arrived. */
  function restoreInputs(gatewayChoice: string | null, typed: Record<string, string>): void {
    batch(() => {
      if (gatewayChoice && view.value.gateways.some((option) => option.id === gatewayChoice)) {
        gatewayId.value = gatewayChoice;
      }
      values.value = { ...values.value, ...typed };
    });
  }

  return {
    // state
    view: view as ReadonlySignal<CheckoutView>,
    gatewayId: gatewayId as ReadonlySignal<string | null>,
    values: values as ReadonlySignal<Record<string, string>>,
    fieldErrors: fieldErrors as ReadonlySignal<Record<string, string>>,
    message: message as ReadonlySignal<string | null>,
    pending: pending as ReadonlySignal<CheckoutAction | null>,
    redirecting: redirecting as ReadonlySignal<boolean>,
    now: now as ReadonlySignal<number>,
    timeZone: timeZone as ReadonlySignal<string | undefined>,
    interactive: interactive as ReadonlySignal<boolean>,
    focusTarget: focusTarget as ReadonlySignal<FocusTarget | null>,
    confirmingCancel: confirmingCancel as ReadonlySignal<boolean>,
    // derived
    gateway,
    status,
    payable,
    remainingMs,
    showCountdown,
    minutesLeft,
    locked,
    // actions
    selectGateway,
    setField,
    checkField,
    pay,
    askCancel,
    keepPaying,
    cancel,
    expire,
    applyView,
    start,
    restoreInputs,
  };
}
