// The screen's state: the signals the model owns, the values derived from them, and the
// two things every action needs (the corrected clock, focus requests). Nothing here acts.
import { computed, signal } from '@preact/signals-core';
import type { CheckoutAction } from './transport';
import type { CheckoutDeps } from './model-deps';
import type { CheckoutView, ScreenStatus } from './view';

/** Below this much time left the screen shows a live countdown. */
export const COUNTDOWN_FROM_MS = 10 * 60 * 1000;

export type DisplayStatus = ScreenStatus | 'processing';

/**
 * Where keyboard focus should go after a result the customer did not cause directly; the
 * field name `gateway` means the payment method radios.
 */
export type FocusRequest = { kind: 'field'; name: string } | { kind: 'alert' } | { kind: 'status' } | { kind: 'confirm' } | { kind: 'cancel' };
/** `seq` makes a repeated request (the same field twice) a new value that subscribers see. */
export type FocusTarget = FocusRequest & { seq: number };

/** The mark a declined card's number field gets (the alert says why). */
export const DECLINED_CARD = 'error.card.declined';

/**
 * A link whose moment has passed is expired even if the server has not swept it yet; the
 * server and the browser apply the same rule to the same data, so their markup agrees.
 */
export function withExpiry(view: CheckoutView): CheckoutView {
  const open = view.status === 'pending' || view.status === 'declined';
  return open && Date.parse(view.expiresAt) <= Date.parse(view.serverNow) ? { ...view, status: 'expired', error: null } : view;
}

/** A declined card marks its number field (of the chosen method), so the customer sees where to act. */
export function declinedCard(next: CheckoutView, gatewayId: string | null): Record<string, string> {
  if (next.status !== 'declined' || (next.error?.fields && Object.keys(next.error.fields).length > 0)) return {};
  const numberField = next.gateways.find((option) => option.id === gatewayId)?.fields.find((field) => field.validate === 'card-number');
  return numberField ? { [numberField.name]: DECLINED_CARD } : {};
}

export type ModelState = ReturnType<typeof createModelState>;

/** The processor's fields in the page, for one gateway: `submit` checks them, `confirm` pays at the processor then goes to `location`. */
export interface HostedFields {
  gateway: string;
  submit(): Promise<boolean>;
  confirm(secret: string, location: string): Promise<void>;
}

/** `initialView` has been through withExpiry. */
export function createModelState(initialView: CheckoutView, deps: CheckoutDeps) {
  const view = signal(initialView);
  /** The action in flight, if any; at most one at a time. */
  const pending = signal<CheckoutAction | null>(null);
  const gatewayId = signal<string | null>(initialView.selectedGateway);
  // Starts at the server's clock so the first client render matches the server's markup.
  const now = signal(Date.parse(initialView.serverNow));
  let clockSkew = deps.now() - now.value;
  let focusSeq = 0;

  const gateway = computed(() => view.value.gateways.find((option) => option.id === gatewayId.value) ?? null);
  const status = computed<DisplayStatus>(() => (pending.value ? 'processing' : view.value.status));
  /** The form is shown while the transaction can still be paid. */
  const payable = computed(() => status.value === 'pending' || status.value === 'declined' || status.value === 'processing');
  const remainingMs = computed(() => Math.max(0, Date.parse(view.value.expiresAt) - now.value));
  const focusTarget = signal<FocusTarget | null>(null);

  return {
    deps,
    view,
    pending,
    redirecting: signal(false),
    /** The shop's return_url while a paid screen shows its confirmation before going there. */
    returningTo: signal<string | null>(null),
    gatewayId,
    // A failed form post (JavaScript off) sends back what may be shown again.
    values: signal<Record<string, string>>({ ...initialView.values }),
    /** The second step of cancelling: the screen asks before ending the payment for good. */
    confirmingCancel: signal(initialView.confirmCancel ?? false),
    fieldErrors: signal<Record<string, string>>({ ...initialView.error?.fields, ...declinedCard(initialView, initialView.selectedGateway) }),
    message: signal<string | null>(initialView.error?.message || null),
    now,
    /** Undefined means the browser's own zone; the server renders UTC. */
    timeZone: signal<string | undefined>('UTC'),
    /** True once the browser has taken over the server's markup. */
    interactive: signal(false),
    focusTarget,
    /** The URL of the issuer's challenge the customer must answer now (shown as a dialog), or null. */
    challenge: signal<string | null>(null),
    /** A gateway's own fields mounted in the page (`hosted-fields`, stripe-element.ts), or null: it pays by redirect. */
    hosted: signal<HostedFields | null>(null),
    gateway,
    status,
    payable,
    remainingMs,
    showCountdown: computed(() => payable.value && remainingMs.value < COUNTDOWN_FROM_MS),
    /** Whole minutes left, rounded up: changes once a minute, which is what gets announced. */
    minutesLeft: computed(() => Math.ceil(remainingMs.value / 60_000)),
    /** After too many declines, until the server's retry time: Pay stays disabled. */
    locked: computed(() => {
      const at = view.value.retryAt;
      return !!at && now.value < Date.parse(at);
    }),
    requestFocus(target: FocusRequest): void {
      focusTarget.value = { ...target, seq: ++focusSeq };
    },
    /** Moves `now` to the client clock, corrected by the last server clock seen. */
    tick(): void {
      now.value = deps.now() - clockSkew;
    },
    /** Takes a new view's server clock as the reference (call inside a batch). */
    syncClock(serverNow: string): void {
      clockSkew = deps.now() - Date.parse(serverNow);
      now.value = deps.now() - clockSkew;
    },
  };
}
