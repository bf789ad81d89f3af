import { unitsToNumber } from '../domain/money';
import type { PayoutFileItemRow, PayoutFileRow } from '../store/schema';
import type { PayoutState } from '../domain/sepa/states';

// Payout files as the API and the dashboard show them (docs/balance.md#payout-files).

/** What a file downloaded before says on every later download: the bank pays each upload. */
export const payTwiceWarning = (downloads: number) =>
  `This file was downloaded ${downloads === 1 ? 'once' : `${downloads} times`} before: uploading it to your bank again pays every payout in it twice`;

export function presentPayoutFile(row: PayoutFileRow) {
  return {
    id: row.id,
    state: row.state,
    version: row.version,
    message_id: row.message_id,
    currency: row.currency,
    payout_count: row.payout_count,
    amount: unitsToNumber(row.control_sum, 2),
    execution_date: row.execution_date,
    download_count: row.download_count,
    downloaded: row.downloaded_at,
    cancelled: row.cancelled_at,
    warning: row.download_count > 0 && row.state !== 'cancelled' ? payTwiceWarning(row.download_count) : null,
    created: row.created_at,
    updated: row.updated_at,
  };
}

export function presentFileItem(item: PayoutFileItemRow & { status: PayoutState }) {
  return {
    object: item.kind,
    id: item.payout_id,
    end_to_end_id: item.end_to_end_id,
    payment_info_id: item.payment_info_id,
    amount: unitsToNumber(item.amount, 2),
    status: item.status,
  };
}
