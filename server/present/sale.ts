import { findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { saleStatus } from '../domain/sales';
import type { StoredSale } from '../store/sales';

// A sale as the API shows it (and as its events carry it).

type OperationKind = 'authorize' | 'capture' | 'refund' | 'void' | 'charge' | 'decline';

export function presentSale({ row, operations }: StoredSale) {
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
    held: money(row.held),
    captured: money(row.captured),
    refunded: money(row.refunded),
    voided: money(row.voided),
    refundable: money(row.captured - row.refunded),
    failure: row.failure as 'declined' | 'insufficient_funds' | null,
    description: row.description,
    card: row.card_brand || row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
    notify_url: row.notify_url,
    operations: operations.map((o) => ({
      id: o.id,
      kind: o.kind as OperationKind,
      amount: money(o.amount),
      created: o.created_at,
    })),
    created: row.created_at,
    updated: row.updated_at,
  };
}
