import type { Interval } from '../domain/periods';
import type { TransactionStatus } from '../domain/transaction-status';

export type { TransactionStatus };

// Row shapes of the SQL schema (see migrations.ts). Both engines store the same types:
// text, 64-bit integers (money in minor units), 0/1 for booleans, ISO 8601 UTC text for
// moments and JSON text for nested values, so rows read the same on either engine.

export interface EnvironmentRow {
  id: string;
  name: string;
  public_key: string;
  secret_hash: string;
  webhook_secret: string;
  allowed_origins: string; // JSON array of origins allowed to embed the checkout
  is_demo: number;
  created_at: string;
}

interface Owned {
  id: string;
  environment_id: string;
  created_at: string;
  updated_at: string;
}

export interface ProductRow extends Owned {
  product_id: string | null;
  name: string;
  description: string | null;
  /** Minor units of `currency`; without a currency, at PRICE_SCALE_WITHOUT_CURRENCY decimals. */
  price: number;
  /** null: priced in whatever currency the transaction that uses it has. */
  currency: string | null;
  enabled: number;
}

export interface PlanRow extends Owned {
  plan_id: string | null;
  name: string;
  description: string | null;
  amount: number;
  currency: string;
  interval: Interval;
  interval_count: number;
  trial_days: number;
  enabled: number;
}

export interface TaxRow extends Owned {
  name: string;
  rate_e4: number; // percentage × 10⁴: 21 % → 210000
  enabled: number;
}

export interface ShippingRow extends Owned {
  name: string;
  price: number;
  currency: string;
  enabled: number;
}

export interface CouponRow extends Owned {
  name: string;
  code: string | null;
  kind: 'fixed' | 'percent';
  value: number; // minor units when fixed, percentage × 10⁴ when percent
  currency: string | null;
  enabled: number;
}

export type SaleOperationKind = 'authorize' | 'capture' | 'refund' | 'void' | 'charge' | 'decline';

export interface TransactionRow extends Owned {
  token: string;
  order_id: string | null;
  currency: string;
  note: string | null;
  extra: string | null;
  return_url: string | null;
  cancel_url: string | null;
  notify_url: string | null;
  gateway_selected: number;
  language: string | null;
  expired_at: string;
  authorize: number;
  tax_ref: string | null;
  tax_name: string | null;
  tax_value: number;
  shipping_ref: string | null;
  shipping_name: string | null;
  shipping_value: number;
  coupon_ref: string | null;
  coupon_name: string | null;
  coupon_value: number;
  items_price: number;
  total_price: number;
  source: string | null;
  destination: string | null;
  status: TransactionStatus;
  processing_until?: string | null;
}

export interface TransactionLineRow {
  id: string;
  transaction_id: string;
  position: number;
  product_ref: string | null;
  product_id: string | null;
  name: string;
  description: string | null;
  unit_price: number;
  quantity: string;
  line_total: number;
}

export interface IdempotencyRow {
  environment_id: string;
  key: string;
  request_hash: string;
  state: string; // 'running' | 'done'
  status_code: number | null;
  response_body: string | null;
  created_at: string;
}

export interface SaleRow extends Owned {
  transaction_id: string | null;
  authorization_id: string | null;
  gateway_id: string;
  currency: string;
  amount: number;
  held: number;
  captured: number;
  refunded: number;
  voided: number;
  description: string | null;
  card_brand: string | null;
  card_last4: string | null;
  notify_url: string | null;
  /** null, or why the gateway declined the charge that made the sale. */
  failure: 'declined' | 'insufficient_funds' | null;
  /** The transaction whose `source` this card charge paid part of, or null. */
  source_transaction_id: string | null;
}

export interface SaleOperationRow {
  id: string;
  sale_id: string;
  kind: SaleOperationKind;
  amount: number;
  gateway_reference: string | null;
  created_at: string;
}

export interface AuthorizationRow extends Owned {
  transaction_id: string | null;
  gateway_id: string;
  status: 'active' | 'removed';
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  gateway_reference: string;
  notify_url: string | null;
}

export interface PaymentAttemptRow {
  id: string;
  transaction_id: string;
  gateway_id: string;
  outcome: string; // 'approved' | 'declined' | 'insufficient_funds' | 'redirected' | 'rejected'
  card_brand: string | null;
  card_last4: string | null;
  created_at: string;
}

export interface EventRow {
  id: string;
  environment_id: string;
  type: string;
  object_id: string;
  notify_url: string;
  payload: string;
  delivery_status: string; // 'pending' | 'delivered' | 'failed' | 'stopped'
  attempt_count: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  claimed_by: string | null;
  delivered_at: string | null;
  created_at: string;
}

export interface DeliveryAttemptRow {
  id: string;
  event_id: string;
  attempt: number;
  result: 'delivered' | 'failed' | 'gone';
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  created_at: string;
}

export const GATEWAY_CALL_KINDS = ['pay', 'charge', 'store', 'capture', 'refund', 'void', 'subscription'] as const;
export type GatewayCallKind = (typeof GATEWAY_CALL_KINDS)[number];
/**
 * pending: reserved, the gateway is being asked (or the process died asking: reconciled
 * once `claimed_until` has passed); succeeded / failed: recorded; abandoned: the gateway
 * did not answer in time and the caller was told it failed, so reconciliation undoes
 * whatever the gateway did after all (reversed) or finds it did nothing (failed).
 */
export type GatewayCallState = 'pending' | 'succeeded' | 'failed' | 'abandoned' | 'reversed';

export interface GatewayCallRow extends Owned {
  reference: string;
  gateway_id: string;
  kind: GatewayCallKind;
  state: GatewayCallState;
  /** The transaction (pay), authorization (charge), sale (capture, refund, void) or subscription period (subscription) reserved; the call itself for store. */
  subject_id: string;
  amount: number;
  currency: string;
  /** JSON: what the recording step needs beyond the gateway's answer (never card data). */
  request: string;
  claimed_until: string | null;
  /** When reconciliation asks the gateway next about an abandoned call. */
  check_at: string | null;
  checks: number;
  /** The sale or authorization the recording step made. */
  result_id: string | null;
}

export interface ClientRow extends Owned {
  client_id: string | null;
  name: string;
  client_type: string | null; // 'individual' | 'company'
  id_type: string | null;
  id_country: string;
  id_number: string;
  id_expiration_date: string | null; // YYYY-MM-DD
  email: string | null;
  phone: string | null; // E.164
  web: string | null;
  incorporation_date: string | null;
  birth_date: string | null;
  birth_country: string | null;
  nationality: string | null;
  street: string | null;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  notify_url: string | null;
  enabled: number;
  enabled_by_compliance: number;
}

export interface ClientIbanRow extends Owned {
  client_ref: string; // the client's id
  iban_id: string | null;
  iban: string; // electronic format
  notify_url: string | null;
  enabled: number;
  enabled_by_compliance: number;
}

export interface ClientDocumentRow extends Owned {
  client_ref: string;
  type: string;
  status: 'pending' | 'accepted' | 'rejected';
  status_reason: string | null;
  file_name: string;
  content_type: string;
  size: number;
  sha256: string; // hex
  reviewed_at: string | null;
}

export interface WalletRow extends Owned {
  wallet_id: string;
  name: string;
  client_id: string; // the client's id
  currency: string;
  notify_url: string | null;
  enabled: number;
  balance: number; // minor units, never below 0
  entry_count: number; // the seq of the wallet's last entry
}

export interface TransferRow extends Owned {
  transfer_id: string | null;
  source_wallet: string;
  destination_wallet: string | null;
  destination_iban: string | null;
  amount: number;
  currency: string;
  concept: string | null;
  status: string; // 'paid' | 'pending' | 'failed'
  failure: string | null;
  notify_url: string | null;
  locked_until: string | null;
}

export interface LedgerEntryRow {
  id: string;
  environment_id: string;
  /** The movement the entry belongs to: its entries add up to zero. */
  movement_id: string;
  account: string; // 'wallet' | 'card_payments' | 'payouts' | 'merchant'
  wallet: string | null;
  seq: number | null;
  currency: string;
  amount: number; // signed minor units
  balance: number | null; // the wallet's balance after this entry
  concept: string | null;
  with_wallet: string | null;
  with_sale: string | null;
  with_external: string | null;
  transfer: string | null;
  created_at: string;
}

export interface SubscriptionRow extends Owned {
  plan_ref: string;
  plan_name: string;
  amount: number;
  currency: string;
  interval: Interval;
  interval_count: number;
  trial_days: number;
  client_ref: string | null;
  subscription_id: string | null;
  authorization_id: string | null;
  token: string;
  notify_url: string | null;
  return_url: string | null;
  cancel_url: string | null;
  language: string | null;
  status: string; // see server/domain/subscription-states.ts
  started_at: string | null;
  trial_end: string | null;
  period: number;
  anchor_at: string | null;
  anchor_index: number;
  failures: number;
  next_charge_at: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  paused_at: string | null;
  stopped_at: string | null;
  stop_reason: 'requested' | 'payment_failed' | null;
  claimed_until: string | null;
  claimed_by: string | null;
}

export interface SubscriptionChargeRow {
  id: string;
  subscription_id: string;
  period: number;
  period_start: string;
  period_end: string;
  amount: number;
  currency: string;
  status: 'pending' | 'charged' | 'failed'; // pending: reserved, the gateway has not answered yet
  attempts: number;
  reference: string; // the gateway idempotency reference of the latest attempt
  failure: string | null;
  transaction_id: string | null;
  sale_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface Tables {
  environments: EnvironmentRow;
  products: ProductRow;
  plans: PlanRow;
  taxes: TaxRow;
  shipping: ShippingRow;
  coupons: CouponRow;
  transactions: TransactionRow;
  transaction_lines: TransactionLineRow;
  idempotency_keys: IdempotencyRow;
  sales: SaleRow;
  sale_operations: SaleOperationRow;
  authorizations: AuthorizationRow;
  payment_attempts: PaymentAttemptRow;
  secrets: { name: string; value: string };
  events: EventRow;
  delivery_attempts: DeliveryAttemptRow;
  gateway_calls: GatewayCallRow;
  clients: ClientRow;
  client_ibans: ClientIbanRow;
  client_documents: ClientDocumentRow;
  client_document_files: { document_id: string; data: Uint8Array };
  wallets: WalletRow;
  transfers: TransferRow;
  ledger_entries: LedgerEntryRow;
  subscriptions: SubscriptionRow;
  subscription_charges: SubscriptionChargeRow;
}
