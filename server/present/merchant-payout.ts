import { findCurrency } from '../domain/currencies';
import { shownPeriod } from '../domain/merchant-payouts';
import { unitsToNumber } from '../domain/money';
import type { PayoutSettings } from '../store/merchant-payouts';
import type { MerchantPayoutRow } from '../store/schema';

// Payouts to the merchant and its payout settings as the API shows them.

export function presentMerchantPayout(row: MerchantPayoutRow) {
  return {
    id: row.id,
    status: row.status,
    currency: row.currency,
    amount: unitsToNumber(row.amount, findCurrency(row.currency)?.exponent ?? 2),
    schedule: row.schedule,
    period: shownPeriod(row.period),
    iban_last4: row.iban.slice(-4),
    line_count: row.line_count,
    failure: row.failure,
    created: row.created_at,
    updated: row.updated_at,
  };
}

export function presentPayoutSettings(s: PayoutSettings) {
  return { iban: s.iban, account_holder_name: s.account_holder_name, schedule: s.schedule, updated: s.updated_at };
}
