// What the customer sends and what comes back: pay, answer a challenge, cancel (in two
// steps), and a view from the server applied to the state.
import { batch } from '@preact/signals-core';
import { validateFields } from '../fields/card';
import { TransportError, type ChallengeAnswer, type CheckoutAction, type CheckoutOutcome, type RedirectKind } from './transport';
import { DECLINED_CARD, declinedCard, type ModelState, withExpiry } from './model-state';
import type { CheckoutView } from './view';

/** How long a paid screen shows its confirmation before it takes the customer back to the shop. */
export const RETURN_AFTER_MS = 3_000;

export function applyView(m: ModelState, given: CheckoutView): void {
  const next = withExpiry(given);
  const statusChanged = next.status !== m.view.value.status;
  batch(() => {
    m.syncClock(next.serverNow);
    m.view.value = next;
    if (next.selectedGateway && next.gateways.some((option) => option.id === next.selectedGateway)) {
      m.gatewayId.value = next.selectedGateway;
    }
    m.fieldErrors.value = { ...next.error?.fields, ...declinedCard(next, m.gatewayId.value) };
    m.message.value = next.error?.message || null;
    m.confirmingCancel.value = next.confirmCancel ?? false;
    // Card details are not kept in memory once they can no longer be used.
    if (next.status !== 'pending' && next.status !== 'declined') m.values.value = {};
  });
  const firstInvalid = Object.keys(m.fieldErrors.value)[0];
  const open = next.status === 'pending' || next.status === 'declined';
  // A closed payment shows only its result, whatever error text came with it.
  if (!open) {
    if (statusChanged) m.requestFocus({ kind: 'status' });
  } else if (firstInvalid && m.fieldErrors.value[firstInvalid] === DECLINED_CARD && !m.locked.value) {
    // The alert is announced by its role; the focus goes where the customer fixes it.
    m.requestFocus({ kind: 'field', name: firstInvalid });
  } else if (m.message.value || next.status === 'declined') m.requestFocus({ kind: 'alert' });
  else if (firstInvalid) m.requestFocus({ kind: 'field', name: firstInvalid });
}

export function expire(m: ModelState): void {
  if (m.pending.value || !m.payable.value) return;
  applyView(m, { ...m.view.value, status: 'expired', error: null, serverNow: new Date(m.now.value).toISOString() });
}

function send(m: ModelState, action: CheckoutAction, fields: Record<string, string>): Promise<void> {
  return exchange(m, action, () => m.deps.submit({ action, gateway: m.gatewayId.value, fields }, m.view.value.csrf));
}

/** A redirect answer: the issuer's challenge, the shop (after the confirmation), or elsewhere. */
function follow(m: ModelState, action: CheckoutAction, outcome: Extract<CheckoutOutcome, { outcome: 'redirect' }>): void {
  if (outcome.kind === 'challenge') {
    // The issuer asks the customer first: the screen shows its challenge (see client.tsx).
    batch(() => {
      m.pending.value = null;
      m.challenge.value = outcome.location;
    });
    return;
  }
  // Stay in "processing" while the browser leaves, so nothing can be sent twice.
  m.redirecting.value = true;
  const kind: RedirectKind =
    outcome.kind ?? (action === 'cancel' ? 'cancelled' : m.gateway.value?.flow === 'redirect' ? 'provider' : 'completed');
  if (kind === 'completed' && outcome.view?.status === 'paid') {
    // The customer reads "Payment complete" (and may go at once) before the shop opens.
    m.pending.value = null;
    m.returningTo.value = outcome.location;
    applyView(m, outcome.view);
    m.deps.timers.setTimeout(() => m.deps.onRedirect(outcome.location, kind), RETURN_AFTER_MS);
    return;
  }
  m.deps.onRedirect(outcome.location, kind);
}

/** Posts one action and shows what came of it. */
async function exchange(m: ModelState, action: CheckoutAction, post: () => Promise<CheckoutOutcome>): Promise<void> {
  m.pending.value = action;
  m.message.value = null;
  let outcome: CheckoutOutcome;
  try {
    outcome = await post();
  } catch (error) {
    batch(() => {
      m.pending.value = null;
      m.message.value = error instanceof TransportError ? 'error.network' : 'error.generic';
    });
    m.requestFocus({ kind: 'alert' });
    return;
  }
  if (outcome.outcome === 'redirect') return follow(m, action, outcome);
  if (outcome.outcome === 'confirm') {
    // Processing until the browser leaves: the processor's script confirms, then the return route says what came of it.
    m.redirecting.value = true;
    return m.hosted.value?.confirm(outcome.secret, outcome.location);
  }
  m.pending.value = null;
  applyView(m, outcome.view);
}

export async function pay(m: ModelState): Promise<void> {
  if (m.pending.value || !m.payable.value) return;
  m.tick();
  if (m.locked.value) return;
  if (m.remainingMs.value <= 0) return expire(m);
  const chosen = m.gateway.value;
  if (!chosen) {
    batch(() => {
      m.fieldErrors.value = { gateway: 'error.gatewayRequired' };
      m.message.value = null;
    });
    m.requestFocus({ kind: 'field', name: 'gateway' });
    return;
  }
  // A redirect gateway's fields are our page's own (the sign-up's email): none of the card.
  const fields: Record<string, string> = {};
  for (const field of chosen.fields) fields[field.name] = m.values.value[field.name] ?? '';
  const errors = validateFields(chosen.fields, fields, m.now.value);
  const firstInvalid = chosen.fields.find((field) => field.name in errors);
  if (firstInvalid) {
    batch(() => {
      m.fieldErrors.value = errors;
      m.message.value = null;
    });
    m.requestFocus({ kind: 'field', name: firstInvalid.name });
    return;
  }
  // The processor's own fields, when mounted for this gateway: checked by its script first; the card never reaches us.
  const hosted = m.hosted.value;
  if (hosted?.gateway === chosen.id) {
    if (!(await hosted.submit())) return;
    fields.hosted_fields = '1';
  }
  await send(m, 'pay', fields);
}

/**
 * The customer's answer to the open challenge: completed or failed settles the payment,
 * abandoned (closing it) leaves the payment open. The dialog closes at once.
 */
export async function answerChallenge(m: ModelState, answer: ChallengeAnswer): Promise<void> {
  const url = m.challenge.value;
  if (!url || m.pending.value) return;
  m.challenge.value = null;
  await exchange(m, 'pay', () => m.deps.answer(url, answer, m.view.value.csrf));
}

/** The first step of cancelling: nothing is sent, the screen asks to confirm. */
export function askCancel(m: ModelState): void {
  if (m.pending.value || !m.payable.value) return;
  m.confirmingCancel.value = true;
  m.requestFocus({ kind: 'confirm' });
}

export function keepPaying(m: ModelState): void {
  m.confirmingCancel.value = false;
  m.requestFocus({ kind: 'cancel' });
}

/** Ends the payment for good; only ever called once the customer has confirmed. */
export async function cancel(m: ModelState): Promise<void> {
  if (m.pending.value || !m.payable.value) return;
  await send(m, 'cancel', {});
}
