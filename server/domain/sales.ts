// A sale's money, in integer minor units, and the rules of every change of it: the only
// definition. The store locks a sale's row, asks a rule here what the amounts become, and
// writes them with the status saleStatus derives from them (store/sale-aggregate.ts, the
// one writer of sales), so the stored status cannot disagree with the amounts.
//
// Amounts move only from confirmed states. An action is reserved before its gateway call
// (so concurrent actions cannot exceed the amounts) into an in-flight amount of its own
// (`capturing`, `refunding`, `voiding`), and reaches its confirmed amount (`captured`,
// `refunded`, `voided`) only when the gateway has said it acted. A capture in flight is
// not refundable yet; a hold being captured or voided is still held until confirmed.

export interface SaleAmounts {
  amount: number;
  /** Held at the processor and free: neither captured nor voided, nor being either. */
  held: number;
  captured: number;
  refunded: number;
  voided: number;
  /** Reserved by an action whose gateway call has not been confirmed yet. */
  capturing: number;
  refunding: number;
  voiding: number;
  /** Set when the charge that made the sale moved no money: declined, or never processed. */
  failure: string | null;
  /** Gateway calls of the sale whose outcome is not known yet. */
  pending: number;
  /** What its open and lost disputes took (domain/disputes.ts): never refundable. */
  disputed?: number;
}

export const SALE_STATUSES = [
  'pending',
  'failed',
  'declined',
  'held',
  'partially_captured',
  'voided',
  'captured',
  'partially_refunded',
  'refunded',
] as const;
export type SaleStatus = (typeof SALE_STATUSES)[number];

/**
 * A sale pays its transaction when its charge moved money (no failure) and it is not a late
 * payment (made after another had paid, and reversed by the service): a transaction's first
 * such sale is the one that paid it. The read side's SQL twin is store/paying-sale.ts.
 */
export const paysItsTransaction = (s: { failure: string | null; late_for_transaction_id: string | null }): boolean =>
  s.failure === null && s.late_for_transaction_id === null;

/** The failure of a sale whose charge had an unknown outcome and that the gateway proved it never made. */
const NOT_PROCESSED = 'not_processed';

/** What is still held at the processor: the free hold and what is being captured or voided. */
export const stillHeld = (s: SaleAmounts) => s.held + s.capturing + s.voiding;

/** See the README (Sales, Status): the first rule that applies wins, over confirmed amounts only. */
export function saleStatus(s: SaleAmounts): SaleStatus {
  if (s.pending > 0) return 'pending';
  if (s.failure === NOT_PROCESSED) return 'failed';
  if (s.failure !== null) return 'declined';
  if (stillHeld(s) > 0) return s.captured > 0 ? 'partially_captured' : 'held';
  if (s.captured === 0 && s.voided > 0) return 'voided';
  if (s.refunded === 0) return 'captured';
  return s.refunded < s.captured ? 'partially_refunded' : 'refunded';
}

export type SaleAction = 'capture' | 'refund' | 'void';

/** The in-flight amount an action reserves into, and the confirmed one it ends in. */
const IN_FLIGHT = { capture: 'capturing', refund: 'refunding', void: 'voiding' } as const;
const CONFIRMED = { capture: 'captured', refund: 'refunded', void: 'voided' } as const;

/** The most an action may move now (from confirmed amounts only); also its amount when the request names none. */
export function actionLimit(action: SaleAction, s: SaleAmounts): number {
  return action === 'refund' ? Math.max(0, s.captured - s.refunded - s.refunding - (s.disputed ?? 0)) : s.held;
}

/** Money that could become movable by the action once a call in flight is confirmed: a capture, for a refund. */
export const awaitingConfirmation = (action: SaleAction, s: SaleAmounts): number => (action === 'refund' ? s.capturing : 0);

/** An action's reservation of `x`: the amounts after it, or null when the rule refuses it. */
export function reserveAction(action: SaleAction, s: SaleAmounts, x: number): SaleAmounts | null {
  if (s.failure !== null || x <= 0 || x > actionLimit(action, s)) return null;
  const flight = IN_FLIGHT[action];
  return { ...s, ...(action === 'refund' ? {} : { held: s.held - x }), [flight]: s[flight] + x };
}

/** The gateway acted: the reserved `x` becomes confirmed. */
export function confirmAction(action: SaleAction, s: SaleAmounts, x: number): SaleAmounts | null {
  const flight = IN_FLIGHT[action];
  const done = CONFIRMED[action];
  if (s[flight] < x) return null;
  return { ...s, [flight]: s[flight] - x, [done]: s[done] + x };
}

/** The gateway did not act: the reserved `x` goes back where it came from. */
export function releaseAction(action: SaleAction, s: SaleAmounts, x: number): SaleAmounts | null {
  const flight = IN_FLIGHT[action];
  if (s[flight] < x) return null;
  return { ...s, ...(action === 'refund' ? {} : { held: s.held + x }), [flight]: s[flight] - x };
}

/** An action's step on the amounts: reserved before the gateway call, then confirmed or released. */
export type ActionStep = 'reserve' | 'confirm' | 'release';

const STEPS = { reserve: reserveAction, confirm: confirmAction, release: releaseAction } as const;

/** A step of an action on a sale whose charge moved money (a failed charge moves none): the amounts after it, or null when the rule refuses it. */
export function stepAction(action: SaleAction, step: ActionStep, s: SaleAmounts, x: number): SaleAmounts | null {
  return s.failure === null ? STEPS[step](action, s, x) : null;
}

/** A refund the gateway confirmed and then failed (the bank returned it): refundable again. null when `refunded` does not hold it. */
export function undoRefund(s: SaleAmounts, x: number): SaleAmounts | null {
  return s.refunded >= x ? { ...s, refunded: s.refunded - x } : null;
}

/**
 * What disputes hold of the sale moved by `x` (negative: given back): null when they would
 * take more than is captured and neither refunded nor being refunded, or less than nothing.
 */
export function moveDisputed(s: SaleAmounts, x: number): SaleAmounts | null {
  const disputed = (s.disputed ?? 0) + x;
  return disputed >= 0 && s.refunded + s.refunding + disputed <= s.captured ? { ...s, disputed } : null;
}

/** A charge of unknown outcome, or an action's call of one, on this sale: one more pending. */
export const addPending = (s: SaleAmounts): SaleAmounts => ({ ...s, pending: s.pending + 1 });

/** An action's call whose outcome had been unknown is settled: one pending less (null when none is). */
export const removePending = (s: SaleAmounts): SaleAmounts | null => (s.pending > 0 ? { ...s, pending: s.pending - 1 } : null);

/** The charge that made a pending sale is settled: what it captured, or its failure; no longer pending. null when it was not pending. */
export function settleCharge(s: SaleAmounts, result: { captured: number; failure: SaleAmounts['failure'] }): SaleAmounts | null {
  return s.pending > 0 ? { ...s, ...result, pending: 0 } : null;
}

/** A charge the sale's failure had refused was made after all (late, or confirmed by the customer): captured, no failure. */
export const chargeMadeAfterAll = (s: SaleAmounts, captured: number): SaleAmounts => ({ ...s, captured, failure: null });

/**
 * The amounts once a capture on a gateway without `repeatedCapture` (domain/gateway-capabilities.ts) is confirmed: the free
 * hold it left is released (voided) with it, as the processor released it. null when
 * nothing is left to release. A void in flight keeps its own amount.
 */
export const releaseRestOfHold = (s: SaleAmounts): SaleAmounts | null => (s.held > 0 ? { ...s, held: 0, voided: s.voided + s.held } : null);

/** The rule each action must keep, as the 409 names it. */
export const ACTION_RULES: Record<SaleAction, string> = {
  capture: 'a capture cannot exceed the amount still held',
  void: 'a void cannot exceed the amount still held',
  refund: 'a refund cannot exceed the captured amount not yet refunded',
};

/**
 * The `gateway` of a transaction's sale paid from its `source` (the nil UUID): no one
 * gateway made it; each card source names its own charge, whose sale names its gateway.
 */
export const SOURCES_GATEWAY = '00000000-0000-0000-0000-000000000000';

/** Whether the sale is a transaction's sale paid from its `source` (its parts are its sources). */
export const isSourceSale = (s: { gateway_id: string }) => s.gateway_id === SOURCES_GATEWAY;

/** A source of such a sale, as a refund sees it: what it can still take back now. */
export interface RefundableSource {
  position: number;
  kind: 'card' | 'wallet';
  refundable: number;
}

/** One source's part of a refund. */
export interface RefundPart {
  position: number;
  kind: 'card' | 'wallet';
  amount: number;
}

/**
 * Splits a refund of a sale paid from a `source` over its sources: the cards first, in
 * the transaction's order, then the wallets, in that order; each source gives what it
 * still can before the next is asked. Cards first because the customer's card is where
 * the money came from outside the platform and a card's refund has a deadline at its
 * processor, while a wallet can take money back at any time. null when the sources cannot
 * give `amount` between them.
 */
export function allocateRefund(sources: RefundableSource[], amount: number): RefundPart[] | null {
  if (amount <= 0) return null;
  const inOrder = [...sources].sort((a, b) => a.position - b.position);
  const ordered = [...inOrder.filter((s) => s.kind === 'card'), ...inOrder.filter((s) => s.kind === 'wallet')];
  const parts: RefundPart[] = [];
  let left = amount;
  for (const s of ordered) {
    const take = Math.min(left, Math.max(0, s.refundable));
    if (take > 0) parts.push({ position: s.position, kind: s.kind, amount: take });
    left -= take;
    if (left === 0) return parts;
  }
  return null;
}
