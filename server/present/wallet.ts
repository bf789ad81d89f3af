import { findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import type { ShownWallet } from '../store/ledger';
import type { LedgerEntryRow, TransferRow } from '../store/schema';

// Wallets, their entries and transfers as the API shows them (and as their events carry them).

const moneyOf = (currency: string) => (units: number) => unitsToNumber(units, findCurrency(currency)?.exponent ?? 2);

export function presentWallet(row: ShownWallet) {
  return {
    id: row.id,
    enabled_by_compliance: row.enabled_by_compliance,
    wallet_id: row.wallet_id,
    name: row.name,
    client_id: row.client_id,
    currency: row.currency,
    notify_url: row.notify_url,
    enabled: row.enabled,
    balance: moneyOf(row.currency)(row.balance),
    receivable: moneyOf(row.currency)(row.receivable),
    created: row.created_at,
    updated: row.updated_at,
  };
}

export function presentEntry(row: LedgerEntryRow) {
  const money = moneyOf(row.currency);
  return {
    id: row.id,
    wallet: row.wallet!,
    amount: money(row.amount),
    balance: money(row.balance!),
    concept: row.concept,
    currency: row.currency,
    date: row.created_at,
    with_wallet: row.with_wallet,
    with_sale: row.with_sale,
    with_external: row.with_external,
    transfer: row.transfer,
  };
}

/** `in_transit` and `returned` come with payouts by SEPA file only (domain/sepa/states.ts). */
export const TRANSFER_STATUSES = ['pending', 'in_transit', 'paid', 'returned', 'failed'] as const;

export function presentTransfer(row: TransferRow) {
  return {
    id: row.id,
    transfer_id: row.transfer_id,
    status: row.status as (typeof TRANSFER_STATUSES)[number],
    source_wallet: row.source_wallet,
    destination_wallet: row.destination_wallet,
    destination_iban: row.destination_iban,
    amount: moneyOf(row.currency)(row.amount),
    currency: row.currency,
    concept: row.concept,
    notify_url: row.notify_url,
    failure: row.failure,
    created: row.created_at,
    updated: row.updated_at,
  };
}
