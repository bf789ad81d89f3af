import { REDSYS_BIZUM_ID, REDSYS_CARD_ID, STRIPE_CARD_ID } from './processor-gateway-ids';

// What the merchant's own processor account settled for a sale (docs/processors.md "What
// settles where"): its figures, read from the processor (Stripe: the balance transaction of
// the payment's charge), are the processor's own, beside our `fee` and never in our balance.
// A sale of a gateway the platform settles has none.

/** The processor's figures for a captured payment; money in the processor's minor units of `currency`. */
export interface ProcessorFigures {
  /** The processor's id of the record (Stripe's balance transaction, `txn_…`). */
  record: string;
  /** Upper-case ISO 4217: the currency the processor settled in (it may convert the payment's). */
  currency: string;
  amount: number;
  fee: number;
  net: number;
  /** When the processor makes the net available for its payout to the merchant; null: it does not say. */
  availableOn: Date | null;
}

/**
 * How a sale's processor settlement stands: `known` (its figures read), `pending` (money
 * captured, figures not read yet: a moment after the payment, or the daily sweep's),
 * `none` (nothing captured: nothing settles), `not_reported` (its processor reports no
 * figures per payment: Redsys, whose bank statement shows them).
 */
export type ProcessorSettlementStatus = 'known' | 'pending' | 'none' | 'not_reported';

/** The connected processors' gateways, each with whether its processor reports figures per payment. */
const REPORTS_FIGURES: Record<string, boolean> = { [STRIPE_CARD_ID]: true, [REDSYS_CARD_ID]: false, [REDSYS_BIZUM_ID]: false };

/** null: the platform settles the sale's money. Else its status, with the figures when `known`. */
export function processorSettlement(sale: { gateway_id: string; captured: number }, figures: ProcessorFigures | null): { status: ProcessorSettlementStatus; figures: ProcessorFigures | null } | null {
  const reports = REPORTS_FIGURES[sale.gateway_id];
  if (reports === undefined) return null;
  if (figures) return { status: 'known', figures };
  if (!reports) return { status: 'not_reported', figures: null };
  return { status: sale.captured > 0 ? 'pending' : 'none', figures: null };
}

/** A processor's payout's states, as Stripe names them (its `payout.status`). */
export const PROCESSOR_PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type ProcessorPayoutStatus = (typeof PROCESSOR_PAYOUT_STATUSES)[number];

/**
 * A payout the merchant's own processor account made to the merchant's bank (Stripe's
 * `payout`): the processor's money, read for the dashboard, never ours to make or change.
 */
export interface ProcessorPayout {
  /** The processor's id (`po_…`). */
  id: string;
  /** The processor's minor units of `currency` (upper-case ISO 4217). */
  amount: number;
  currency: string;
  status: ProcessorPayoutStatus;
  /** When the processor expects the money in the bank (or it arrived). */
  arrivalDate: Date;
  /** Why it failed, as the processor says; null unless it failed. */
  failureMessage: string | null;
  created: Date;
}
