import type { Db } from './db';
import { MERCHANT_COLUMNS, type Merchant, splitMerchant } from './environments';
import type { GatewayCallRow, SaleRow } from './schema';

// The hosted page of a charge that needs its customer (`/pay/confirm/{token}/`,
// payments/confirm-payment.ts): the sale its token names, with the charge call that made it
// (our reference and the processor's payment); the confirmation is recorded by
// sale-aggregate.ts's markConfirmed.

/** `cfm_` and 24 random bytes, URL-safe (payments/charge-record.ts makes them). */
export const CONFIRM_TOKEN = /^cfm_[A-Za-z0-9_-]{32}$/;

/** The page's row: the sale, its token under the name every hosted page's row uses, and no URLs of the shop (a charge has none). */
export type ConfirmRow = SaleRow & { token: string };

export interface ConfirmPage {
  row: ConfirmRow;
  merchant: Merchant;
  /** The charge call that made the sale: our reference, the processor's payment (`processor_id`), and what it charged (`kind` `charge`: an authorization; `subscription`: the period's charge row `subject_id`). */
  call: Pick<GatewayCallRow, 'reference' | 'processor_id' | 'gateway_id' | 'gateway_account' | 'kind' | 'subject_id'>;
}

export async function findConfirm(db: Db, token: string): Promise<ConfirmPage | undefined> {
  const found = await db
    .selectFrom('sales')
    .innerJoin('environments', 'environments.id', 'sales.environment_id')
    .selectAll('sales')
    .select(MERCHANT_COLUMNS)
    .where('sales.confirm_token', '=', token)
    .executeTakeFirst();
  if (!found) return undefined;
  const call = await db
    .selectFrom('gateway_calls')
    .select(['reference', 'processor_id', 'gateway_id', 'gateway_account', 'kind', 'subject_id'])
    .where('result_id', '=', found.id)
    .where('kind', 'in', ['charge', 'subscription'])
    .executeTakeFirst();
  if (!call) return undefined;
  const { row, merchant } = splitMerchant(found);
  return { row: { ...row, token }, merchant, call };
}

