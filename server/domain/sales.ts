// A sale's money, in integer minor units, and the rules of its three actions. The status
// is never stored: it is derived from the amounts, so it cannot disagree with them.

export interface SaleAmounts {
  amount: number;
  held: number;
  captured: number;
  refunded: number;
  voided: number;
  /** Set when the gateway declined the charge that made the sale: no money moved. */
  failure: string | null;
}

export const SALE_STATUSES = [
  'declined',
  'held',
  'partially_captured',
  'voided',
  'captured',
  'partially_refunded',
  'refunded',
] as const;
export type SaleStatus = (typeof SALE_STATUSES)[number];

/** See the README (Sales, Status): the first rule that applies wins. */
export function saleStatus(s: SaleAmounts): SaleStatus {
  if (s.failure !== null) return 'declined';
  if (s.held > 0) return s.captured > 0 ? 'partially_captured' : 'held';
  if (s.captured === 0 && s.voided > 0) return 'voided';
  if (s.refunded === 0) return 'captured';
  return s.refunded < s.captured ? 'partially_refunded' : 'refunded';
}

export type SaleAction = 'capture' | 'refund' | 'void';

/** The most an action may move now; also its amount when the request names none. */
export function actionLimit(action: SaleAction, s: SaleAmounts): number {
  return action === 'refund' ? s.captured - s.refunded : s.held;
}

/** The rule each action must keep, as the 409 names it. */
export const ACTION_RULES: Record<SaleAction, string> = {
  capture: 'a capture cannot exceed the amount still held',
  void: 'a void cannot exceed the amount still held',
  refund: 'a refund cannot exceed the captured amount not yet refunded',
};
