// A sale's money, in integer minor units, and the rules of its three actions. The status
// is never stored: it is derived from the amounts, so it cannot disagree with them.
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

/** The failure of a sale whose charge had an unknown outcome and that the gateway proved it never made. */
export const NOT_PROCESSED = 'not_processed';

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
export const IN_FLIGHT = { capture: 'capturing', refund: 'refunding', void: 'voiding' } as const;
export const CONFIRMED = { capture: 'captured', refund: 'refunded', void: 'voided' } as const;

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
