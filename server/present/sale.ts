import { findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { actionLimit, saleStatus, stillHeld } from '../domain/sales';
import type { StoredSale } from '../store/sales';

// A sale as the API shows it (and as its events carry it).

export function presentSale({ row, operations, fee, sources }: StoredSale) {
  const exp = findCurrency(row.currency)?.exponent ?? 2;
  const money = (units: number) => unitsToNumber(units, exp);
  return {
    id: row.id,
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
    disputed: row.dispute_id !== null,
    failure: row.failure,
    description: row.description,
    card: row.card_brand || row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
    authentication: row.authentication_status && row.authentication_method ? { status: row.authentication_status, method: row.authentication_method } : null,
    notify_url: row.notify_url,
    operations: operations.map((o) => ({
      id: o.id,
      kind: o.kind,
      amount: money(o.amount),
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
