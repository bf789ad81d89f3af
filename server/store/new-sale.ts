import { saleStatus } from '../domain/sales';
import type { SaleRow } from './schema';

// The one place a new sale's row is spelled out: the checkout's payment, a charge of a
// stored card (recorded or pending), a subscription's charge and a source-paid transaction
// each state only what their sale is.

/** What every new sale states itself; the rest starts at zero or empty (newSaleRow). */
type NewSale = Pick<SaleRow, 'id' | 'environment_id' | 'gateway_id' | 'gateway_account' | 'currency' | 'amount' | 'notify_url' | 'created_at' | 'updated_at'>;

/** A new sale's row: no money moved or in flight, no failure, nothing linked, but for what `sale` says. */
export function newSaleRow(sale: NewSale & Partial<Omit<SaleRow, 'status'>>): SaleRow {
  const row = {
    transaction_id: null,
    authorization_id: null,
    held: 0,
    captured: 0,
    refunded: 0,
    voided: 0,
    capturing: 0,
    refunding: 0,
    voiding: 0,
    description: null,
    card_brand: null,
    card_last4: null,
    failure: null,
    source_transaction_id: null,
    late_for_transaction_id: null,
    hold_expired_at: null,
    expiry_claimed_until: null,
    disputed: 0,
    dispute_id: null,
    pending: 0,
    authentication_status: null,
    authentication_method: null,
    confirm_token: null,
    confirm_expires_at: null,
    ...sale,
  };
  return { ...row, status: saleStatus(row) };
}
