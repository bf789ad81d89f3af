import { exponentOf, findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { paymentReference } from '../domain/payment-reference';
import { type ProcessorFigures, processorSettlement } from '../domain/processor-settlement';
import { actionLimit, saleStatus, stillHeld } from '../domain/sales';
import type { SaleRow } from '../store/schema';
import type { StoredSale } from '../store/sales';

// A sale as the API shows it (and as its events carry it). `baseUrl`: this service's
// public origin, for the absolute link of a charge that needs its customer (`confirm_url`).

/** `processor_settlement`: null for a sale the platform settles; the figures in the processor's settlement currency. */
function presentProcessorSettlement(row: SaleRow, figures: ProcessorFigures | undefined) {
  const s = processorSettlement(row, figures ?? null);
  if (!s) return null;
  const f = s.figures;
  const money = (units: number | undefined) => (f && units !== undefined ? unitsToNumber(units, exponentOf(f.currency)) : null);
  return {
    status: s.status,
    record: f?.record ?? null,
    currency: f?.currency ?? null,
    amount: money(f?.amount),
    fee: money(f?.fee),
    net: money(f?.net),
    available_on: f?.availableOn?.toISOString() ?? null,
  };
}

/** The page a charge that needs the customer is confirmed on, while it is the sale's answer; else null. */
const confirmUrlOf = (row: StoredSale['row'], baseUrl: string) =>
  row.failure === 'authentication_required' && row.confirm_token ? `${baseUrl}/pay/confirm/${row.confirm_token}/` : null;

export function presentSale({ row, operations, fee, sources, settlement }: StoredSale, baseUrl: string) {
  const exp = findCurrency(row.currency)?.exponent ?? 2;
  const money = (units: number) => unitsToNumber(units, exp);
  return {
    id: row.id,
    reference: paymentReference(row.id),
    status: saleStatus(row),
    transaction_id: row.transaction_id,
    authorization_id: row.authorization_id,
    gateway: row.gateway_id,
    currency: row.currency,
    amount: money(row.amount),
    // Confirmed amounts only: a hold being captured or voided is still held until the gateway confirms it.
    held: money(stillHeld(row)),
    captured: money(row.captured),
    refunded: money(row.refunded),
    voided: money(row.voided),
    refundable: money(actionLimit('refund', row)),
    fee: money(fee),
    processor_settlement: presentProcessorSettlement(row, settlement),
    disputed: row.dispute_id !== null,
    failure: row.failure,
    confirm_url: confirmUrlOf(row, baseUrl),
    description: row.description,
    card: row.card_brand || row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
    authentication: row.authentication_status && row.authentication_method ? { status: row.authentication_status, method: row.authentication_method } : null,
    notify_url: row.notify_url,
    operations: operations.map((o) => ({
      id: o.id,
      kind: o.kind,
      amount: money(o.amount),
      reason: o.reason,
      created: o.created_at,
    })),
    hold_expired: row.hold_expired_at,
    late_for_transaction: row.late_for_transaction_id,
    // Only a transaction's sale paid from its `source` has them.
    ...(sources
      ? {
          sources: sources.map((s) => ({
            wallet_id: s.wallet_id,
            authorization_id: s.authorization_id,
            sale_id: s.charge_id,
            amount: money(s.amount),
            refunded: money(s.refunded),
          })),
        }
      : {}),
    created: row.created_at,
    updated: row.updated_at,
  };
}
