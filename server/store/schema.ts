import type { Authentication } from '../domain/authentication';
import type { SaleStatus } from '../domain/sales';
import type { PayoutSchedule } from '../domain/merchant-payouts';
import type { Interval } from '../domain/periods';
import type { TransactionStatus } from '../domain/transaction-status';
import type { DisputeReason, DisputeStatus } from '../domain/disputes';
import type { PayoutFileState, PayoutKind, PayoutState } from '../domain/sepa/states';
import type { OperationReason } from '../domain/payment-reference';
import type { ProcessorPayoutStatus } from '../domain/processor-settlement';

export type { TransactionStatus };

// Row shapes of the SQL schema (see migrations/). Both engines store the same types:
// text, 64-bit integers (money in minor units), 0/1 for booleans, ISO 8601 UTC text for
// moments and JSON text for nested values, so rows read the same on either engine.
// `npm run lint:schema` (test/schema/row-types.ts) holds these to the migrated tables.

export type EnvironmentMode = 'sandbox' | 'live';

export interface EnvironmentRow {
  id: string;
  name: string;
  public_key: string;
  secret_hash: string;
  webhook_secret: string;
  allowed_origins: string; // JSON array of origins allowed to embed the checkout
  is_demo: number;
  /** A sandbox takes test cards on sandbox gateways; a live environment moves real money (docs/api.md#sandbox-and-live). */
  mode: EnvironmentMode;
  created_at: string;
  /** API requests per second for this environment; null: the service's API_RATE_LIMIT. */
  rate_limit: number | null;
  /** Printed on customers' emails as the address for questions; null: none. */
  support_email?: string | null;
  /** The brand (store/branding.ts): the name customers see instead of `name`, colours as applied, the logo's hash. */
  display_name?: string | null;
  brand_color?: string | null;
  accent_color?: string | null;
  logo_sha256?: string | null;
  /** Signs returns to return_url / cancel_url (`whsec_…`); null only before migration 061 filled it. */
  return_secret: string | null;
  /** After a roll: the replaced secret, still signing until previous_return_secret_expires_at. */
  previous_return_secret: string | null;
  previous_return_secret_expires_at: string | null;
  /** 1: the API takes raw card numbers (POST /v1/authorization/ with `card`); 0: only the hosted page (migration 085). */
  raw_card_numbers?: number;
  /** The dashboard's time zone for this shop (IANA; migration 120, domain/time-zone.ts). */
  time_zone?: string;
  /** Shared by a shop's sandbox and live environments (migration 129, store/environment-pairs.ts); null: not paired. */
  pair_id?: string | null;
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

/** `refund_failed`: a refund the gateway confirmed failed later (the bank returned it): its amount is refundable again. */
export type SaleOperationKind = 'authorize' | 'capture' | 'refund' | 'void' | 'charge' | 'decline' | 'refund_failed';

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
  /** A transaction paid from its `source`: reserved before its first card is charged, then paid or failed; null otherwise. */
  source_state?: 'reserved' | 'paid' | 'failed' | null;
  /** Where receipts go; personal data (docs/checkout.md, "Receipts"). */
  customer_email?: string | null;
  /** Why a source payment failed (`source.<i>: …`), once failed. */
  source_failure?: string | null;
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
  /** Who claimed it last (a random token per claim): only they complete or release it. */
  owner: string | null;
  /** What the key's gateway calls carry: kept when an abandoned claim is taken over. */
  binding: string | null;
}

export interface SaleRow extends Owned {
  transaction_id: string | null;
  authorization_id: string | null;
  gateway_id: string;
  /** The connected processor (processors.id) whose gateway made it, even once disconnected; null: a shared gateway's, or made before migration 138 (payments/registry.ts `find`). */
  gateway_account: string | null;
  currency: string;
  amount: number;
  held: number;
  captured: number;
  refunded: number;
  voided: number;
  /** Reserved by a capture / refund / void whose gateway call is not confirmed yet (domain/sales.ts). */
  capturing: number;
  refunding: number;
  voiding: number;
  description: string | null;
  card_brand: string | null;
  card_last4: string | null;
  notify_url: string | null;
  /**
   * null, or why the charge that made the sale moved nothing: the gateway declined it, or
   * (`not_processed`) its outcome was unknown and the gateway never did it, or
   * (`authentication_required`) the issuer wants the customer to authenticate: the
   * customer may still confirm it on the hosted page of `confirm_token`.
   */
  failure: 'declined' | 'insufficient_funds' | 'not_processed' | 'authentication_required' | null;
  /** A charge that needs the customer: the token of its page `/pay/confirm/{token}/` (migration 108), else null. */
  confirm_token: string | null;
  /** Until when that page takes the confirmation (ISO 8601), else null. */
  confirm_expires_at: string | null;
  /** The transaction whose `source` this card charge paid part of, or null. */
  source_transaction_id: string | null;
  /** A payment the gateway made after this transaction had moved on (paid, cancelled, expired): reversed at the gateway. */
  late_for_transaction_id: string | null;
  /** When the hold-expiry job voided the uncaptured hold (HOLD_EXPIRY_MS after the sale), or null. */
  hold_expired_at: string | null;
  /** Until when a process voiding the expired hold holds the sale (the job's claim), or null. */
  expiry_claimed_until: string | null;
  /** How many of its gateway calls have an unknown outcome (status `pending` while > 0). */
  pending: number;
  /** How the cardholder was authenticated (payments/gateway.ts `Authentication`), or null: not asked. */
  authentication_status: Authentication['status'] | null;
  authentication_method: Authentication['method'] | null;
  /** What its open and lost disputes took, minor units: a refund may not take it (domain/sales.ts). */
  disputed: number;
  /** Its dispute, once the bank opened one (an inquiry too). */
  dispute_id: string | null;
  /** saleStatus() of the amounts above, written with them (migration 115; store/sale-aggregate.ts). */
  status: SaleStatus;
}

export type ChallengeState = 'open' | 'answered' | 'completed' | 'failed' | 'abandoned';

export interface PaymentChallengeRow extends Owned {
  transaction_id: string;
  gateway_id: string;
  /** The connected processor (processors.id) whose gateway made it, even once disconnected; null: a shared gateway's, or made before migration 138 (payments/registry.ts `find`). */
  gateway_account: string | null;
  /** The gateway's id of the challenge, handed back to its `resume`. */
  gateway_challenge: string;
  /** open → answered (its resume call reserved) → completed | failed; open → abandoned. */
  state: ChallengeState;
  expires_at: string;
}

export interface SaleOperationRow {
  id: string;
  sale_id: string;
  kind: SaleOperationKind;
  amount: number;
  gateway_reference: string | null;
  created_at: string;
  /**
   * A refund's ledger movement, which took the sale's split back (for a sale with a
   * destination; none moved otherwise); null for other kinds and refunds before 093.
   */
  movement_id: string | null;
  /** Why the merchant refunded (a refund's only; null: not given, or another kind of operation). */
  reason: OperationReason | null;
  /**
   * When the balance job recorded a capture's, charge's or refund's balance transaction, or
   * found its money is not the platform's balance (payments/balance.ts); null until then. An
   * operation of another kind is born with it (it moves no money of the merchant).
   */
  balance_checked_at: string | null;
}

export interface AuthorizationRow extends Owned {
  transaction_id: string | null;
  gateway_id: string;
  /** The connected processor (processors.id) whose gateway made it, even once disconnected; null: a shared gateway's, or made before migration 138 (payments/registry.ts `find`). */
  gateway_account: string | null;
  /**
   * pending: a store of unknown outcome (no card yet), or a hosted page waiting for its
   * customer (`token`); requires_action: waiting for the customer's challenge; failed: the
   * gateway proved it did not store it; expired: a hosted page's customer never gave a card
   * (payments/authorization-expiry.ts).
   */
  status: 'pending' | 'requires_action' | 'active' | 'removed' | 'failed' | 'expired';
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  gateway_reference: string;
  notify_url: string | null;
  // Migration 085: saving a card on the hosted page, and its challenge (store/saved-cards.ts).
  /** The hosted page's token (`sav_…`); null: none was ever needed. */
  token?: string | null;
  return_url?: string | null;
  cancel_url?: string | null;
  /** 1: the customer gives the card on the page; 0: the merchant gave it through the API. */
  hosted_page?: number;
  /** The gateway's id of the open challenge, handed back to its `resume`; null: none open. */
  gateway_challenge?: string | null;
  challenge_expires_at?: string | null;
  // Migration 089: how the cardholder was authenticated when the card was stored (as on sales).
  authentication_status?: Authentication['status'] | null;
  authentication_method?: Authentication['method'] | null;
  // Migration 104: the client it was saved for (clients.id), or null.
  client_id?: string | null;
}

export interface PaymentAttemptRow {
  id: string;
  transaction_id: string;
  gateway_id: string;
  outcome: string; // 'approved' | 'declined' | 'insufficient_funds' | 'redirected' | 'rejected'
  card_brand: string | null;
  card_last4: string | null;
  created_at: string;
  // Migration 142: the hosted page's language when the customer paid ('au' | 'es' | 'en' | 'fr'); null before it, or off the page.
  language?: string | null;
}

export interface EventRow {
  id: string;
  environment_id: string;
  type: string;
  object_id: string;
  /** The object's notify_url when the event happened; null when it had none. */
  notify_url: string | null;
  payload: string;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'stopped';

/** One destination of an event: its notify_url (`endpoint_id` null) or a webhook endpoint. */
export interface EventDeliveryRow {
  id: string;
  event_id: string;
  environment_id: string;
  endpoint_id: string | null;
  url: string;
  delivery_status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  claimed_by: string | null;
  delivered_at: string | null;
  created_at: string;
}

export type MailKind =
  | 'payment_receipt'
  | 'refund_receipt'
  | 'signup_confirmation'
  | 'trial_reminder'
  | 'password_reset'
  | 'dashboard_invite'
  | 'payout_account_changed'
  | 'dispute_opened'
  | 'payout_failed'
  | 'endpoint_failing';

/** An email to a customer (store/mails.ts); `content` is the JSON of its MailContent. */
export interface MailRow {
  id: string;
  environment_id: string;
  kind: MailKind;
  subject_id: string;
  operation_id: string | null;
  recipient: string | null;
  content: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  claimed_by: string | null;
  last_error: string | null;
  sent_at: string | null;
  created_at: string;
}

export interface DeliveryAttemptRow {
  id: string;
  delivery_id: string;
  event_id: string;
  /** Migration 136: its delivery's webhook endpoint (null: a notify_url's), for the endpoint's page. */
  endpoint_id: string | null;
  attempt: number;
  result: 'delivered' | 'failed' | 'gone';
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  created_at: string;
}

export interface WebhookEndpointRow {
  id: string;
  environment_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types, or ["*"]. */
  enabled_events: string;
  enabled: number;
  disabled_reason: 'failing' | null;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: string | null;
  last_delivered_at: string | null;
  /** Migration 121: the start of the failing spell its team was mailed about (jobs/endpoint-failing.ts). */
  failing_mailed_for?: string | null;
  created_at: string;
  updated_at: string;
}

export type GatewayCallKind = 'pay' | 'charge' | 'store' | 'capture' | 'refund' | 'void' | 'subscription';
/**
 * pending: reserved, the gateway is being asked (or the process died asking: reconciled
 * once `claimed_until` has passed); succeeded / failed: recorded; abandoned: the gateway
 * did not answer in time and the caller was told it failed, so reconciliation undoes
 * whatever the gateway did after all (reversed) or finds it did nothing (failed);
 * attention: for a person (its result could not be recorded, or its gateway can neither be
 * looked up nor notify): docs/operations.md.
 */
export type GatewayCallState = 'pending' | 'succeeded' | 'failed' | 'abandoned' | 'reversed' | 'attention';

export interface GatewayCallRow extends Owned {
  reference: string;
  gateway_id: string;
  /** The connected processor (processors.id) whose gateway made it, even once disconnected; null: a shared gateway's, or made before migration 138 (payments/registry.ts `find`). */
  gateway_account: string | null;
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
  /** The Idempotency-Key binding of the request that made the call, and its step in it (0, 1, …). */
  binding: string | null;
  step: number | null;
  /** Since when its outcome is unknown (no answer): settled only by a lookup or a notification. */
  unknown_since: string | null;
  /** The processor's own id of what the call made or started (an approved answer's reference, a challenge's processorId), once known. */
  processor_id: string | null;
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
  /** Whose account it is, as the bank knows it: the creditor's name a payout file carries (null: not given). */
  account_holder_name: string | null;
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
  /** What the platform covered for the wallet and is owed back (minor units, never below 0). */
  receivable: number;
}

export interface TransferRow extends Owned {
  transfer_id: string | null;
  source_wallet: string;
  destination_wallet: string | null;
  destination_iban: string | null;
  amount: number;
  currency: string;
  concept: string | null;
  status: string; // 'paid' | 'pending' | 'failed', and by SEPA file 'in_transit' | 'returned' (domain/sepa/states.ts)
  failure: string | null;
  notify_url: string | null;
  locked_until: string | null;
}

export interface LedgerEntryRow {
  id: string;
  environment_id: string;
  /** The movement the entry belongs to: its entries add up to zero. */
  movement_id: string;
  account: string; // 'wallet' | 'card_payments' | 'payouts' | 'merchant' | 'platform' | 'fees'
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
  /** Given on the sign-up page: where the confirmation and the trial reminder go. */
  customer_email?: string | null;
  /** When the reminder before the first charge after a trial was queued; null: not yet. */
  reminded_at?: string | null;
  /** Migration 089: the authorization whose challenge the sign-up page waits for (checkout/signup-routes.ts). */
  signup_authorization_id?: string | null;
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

/** What a dashboard user may do in one environment: viewer sees, admin also moves money, owner also manages keys and users. */
export type Role = 'owner' | 'admin' | 'viewer';

export interface UserRow {
  id: string;
  email: string;
  /** scrypt, in the form server/dashboard/passwords.ts writes; null until the invite is used. */
  password_hash: string | null;
  created_at: string;
}

export interface MembershipRow {
  user_id: string;
  environment_id: string;
  role: Role;
  created_at: string;
}

export interface InviteRow {
  token_hash: string;
  user_id: string;
  environment_id: string;
  role: Role;
  expires_at: string;
  used_at: string | null;
  created_by: string | null;
  created_at: string;
  /** 1: its link reached the account's own email (or came from the operator) and may set the first password. */
  proves_email: number;
}

/** A "forgot your password" link (store/password-resets.ts): only its SHA-256 is kept. */
export interface PasswordResetRow {
  token_hash: string;
  user_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface DashboardSessionRow {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  /** The environment the user is looking at (the switcher changes it). */
  environment_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export interface AuditRow {
  id: string;
  environment_id: string | null;
  user_id: string | null;
  email: string | null;
  action: string;
  detail: string | null; // JSON object
  ip: string | null;
  created_at: string;
}

/** A user's authenticator: unconfirmed until a first code is typed (confirmed_at). */
export interface UserTotpRow {
  user_id: string;
  /** Base32, as the authenticator app was given it. */
  secret: string;
  confirmed_at: string | null;
  /** The last TOTP time step accepted (0: none yet): an older or equal one is a replay. */
  last_step: number;
  created_at: string;
}

/** One authenticated /v1/ request, as the request log keeps it (migration 126). */
export interface ApiRequestRow {
  id: string;
  environment_id: string;
  method: string;
  /** The path asked, without its query string. */
  path: string;
  status: number;
  /** The public key of the pair that opened the request; never its secret. */
  public_key: string;
  /** As answered in X-Request-Id and in problems' `request_id`. */
  request_id: string;
  /** 1 when the request carried an Idempotency-Key (its value is not kept). */
  idempotency_key: 0 | 1;
  duration_ms: number;
  created_at: string;
}

export interface ApiKeyRow {
  id: string;
  environment_id: string;
  label: string;
  public_key: string;
  /** SHA-256 hex of the secret key. */
  secret_hash: string;
  /** After a roll: the replaced secret's hash, valid until previous_expires_at. */
  previous_secret_hash: string | null;
  previous_expires_at: string | null;
  revoked_at: string | null;
  rolled_at: string | null;
  created_at: string;
}

/** A key's new secret waiting to be shown once (store/api-key-reveals.ts). */
export interface ApiKeyRevealRow {
  key_id: string;
  /** The dashboard session that made it: only that one sees it. */
  session_id_hash: string;
  /** AES-256-GCM under a key derived from that session's cookie (dashboard/key-reveal.ts). */
  sealed_secret: string;
  expires_at: string;
}

/** A movement of the merchant's own money (server/payments/balance.ts). Signed minor units. */
export interface BalanceTransactionRow {
  id: string;
  environment_id: string;
  /** Code that is not about one type sums `net` whatever the type. */
  type: 'charge' | 'refund' | 'dispute' | 'dispute_reversal' | 'payout' | 'payout_failure';
  /** The sale whose money moved (null for a payout to the merchant). */
  sale_id: string | null;
  /** The dispute it debits or gives back (dispute types). */
  dispute_id: string | null;
  /** The payout that moves it (payout types), or that paid it out (the settlement report's lines). */
  payout_id: string | null;
  /** The sale operation that made it. */
  operation_id: string | null;
  currency: string;
  /** The merchant's part of the money moved: positive in, negative out. */
  amount: number;
  /** What the platform took for it, ≥ 0. */
  fee: number;
  /** amount − fee: what the balance moved by. */
  net: number;
  available_on: string;
  created_at: string;
}

/** Where and when an environment's balance is paid out (docs/balance.md#payouts). */
export interface MerchantPayoutSettingsRow {
  environment_id: string;
  /** Electronic format; null until set. */
  iban: string | null;
  schedule: PayoutSchedule;
  updated_at: string;
  /** Whose account the IBAN is, as the bank knows it (a payout file's creditor name); null: not given. */
  account_holder_name: string | null;
  /** A new IBAN's hold: no payout is made before this moment unless an owner confirms it; null: none. */
  payouts_held_until: string | null;
}

/** A member's choice of the team's emails in one environment (store/notification-preferences.ts); no row: the role's default. */
export interface NotificationPreferenceRow {
  user_id: string;
  environment_id: string;
  dispute_opened: number;
  payout_failed: number;
  endpoint_failing: number;
  /** The dashboard's language when the member chose: their emails' language. */
  language: string | null;
  updated_at: string;
}

/** The confirm link of a held bank account, one per email sent (store/payout-account-links.ts): only its SHA-256 is kept. */
export interface PayoutAccountLinkRow {
  token_hash: string;
  environment_id: string;
  /** The hold it confirms: the settings' `payouts_held_until` when the email was sent. */
  held_until: string;
  created_at: string;
}

/** A payout of the merchant's balance in one currency to its bank account. */
export interface MerchantPayoutRow extends Owned {
  currency: string;
  /** `2026-11-27` (daily), `2026-W48` (weekly), `manual:<id>` (one of its own). */
  period: string;
  schedule: PayoutSchedule;
  /** Minor units, > 0: the sum of its lines' net. */
  amount: number;
  line_count: number;
  /** Where it goes (the settings' IBAN when it was made). */
  iban: string;
  /** The settings' account holder name when it was made: the creditor's name of a payout file. */
  account_holder_name: string | null;
  /** `in_transit` and `returned` by SEPA file only (domain/sepa/states.ts). */
  status: PayoutState;
  failure: string | null;
  /** The payout job's lease while it asks the payout gateway. */
  locked_until: string | null;
  claimed_by: string | null;
}

/** An environment's pricing: percentages × 100 (2.9 % → 290) and fixed parts in minor units. */
export interface EnvironmentPricingRow {
  environment_id: string;
  charge_percent_e2: number;
  charge_fixed: number;
  refund_percent_e2: number;
  refund_fixed: number;
  settlement_delay_days: number;
  updated_at: string;
  /** The fixed fee per dispute, minor units of the disputed sale's currency. */
  dispute_fixed: number;
}

/** A customer's bank disputing a captured sale (domain/disputes.ts, docs/disputes.md). */
export interface DisputeRow extends Owned {
  sale_id: string;
  currency: string;
  /** Minor units: what the bank takes back while the dispute lasts. */
  amount: number;
  /** The dispute fee the merchant's balance paid, minor units (0 for an inquiry). */
  fee: number;
  reason: DisputeReason;
  status: DisputeStatus;
  evidence_due_by: string;
  /** The evidence's text fields, a JSON object. */
  evidence: string;
  submitted_at: string | null;
  closed_at: string | null;
  /** Migration 103: the connected processor that opened it (its `charge.dispute.*` events), or null: the sandbox bank's. */
  processor_id: string | null;
  /** The processor's id of it (`dp_…`). */
  processor_dispute_id: string | null;
  /** What the merchant did that the processor has not been told yet (payments/processor-disputes.ts). */
  processor_sync: 'evidence' | 'submit' | 'accept' | null;
  /** Until when a round of the processor-disputes job holds it. */
  processor_claimed_until: string | null;
}

export interface DisputeFileRow {
  id: string;
  dispute_id: string;
  file_name: string;
  content_type: string;
  size: number;
  sha256: string;
  data: Uint8Array;
  created_at: string;
  /** Migration 103: the processor's id of the file once uploaded there (`file_…`), or null. */
  processor_file_id: string | null;
}

/** One source of a sale paid from a transaction's `source`, in the transaction's order (payments/sources.ts). */
export interface SaleSourceRow {
  sale_id: string;
  /** The element's index in the transaction's `source`. */
  position: number;
  wallet_id: string | null;
  authorization_id: string | null;
  /** A card's charge: the sale of the authorization that took its part. */
  charge_id: string | null;
  amount: number;
  /** A wallet's: what refunds of the sale gave back to it (a card's is its charge's `refunded`). */
  refunded: number;
}

/** A refund of a sale paid from a `source`, reserved whole and made part by part (payments/source-refunds.ts). */
export interface SourceRefundRow {
  id: string;
  environment_id: string;
  sale_id: string;
  /** Its Idempotency-Key's binding, or null: a repeat of the key rolls it forward. */
  binding: string | null;
  amount: number;
  created_at: string;
}

/**
 * A payer of an environment, by the email left on its payments (trimmed, lower-cased), apart
 * for the demo shop's and `npm run trigger`'s payments (`tool` 1): written only by the
 * trigger on a transaction's insert (migration 132), read by the Customers page.
 */
export interface PayerRow {
  environment_id: string;
  customer_key: string;
  tool: number;
  /** The payer's first payment, whose id names them in the dashboard's URLs. */
  first_id: string;
  payments: number;
  last_at: string;
}

/** One row: moved on by trigger at every write to api_keys or environments (store/key-checks.ts). */
export interface AuthChangesRow {
  id: number;
  version: number;
}

/**
 * Something a connected processor told us that our books cannot take, for a person
 * (store/processor-attention.ts, migration 103): one row per processor and `subject`.
 */
export interface ProcessorAttentionRow extends Owned {
  processor_id: string;
  /** The processor's id of the object it is about (`cs_…`, `re_…`, `ch_…`, `dp_…`), or our sale's id. */
  subject: string;
  /** The processor's event that told it (`evt_…`); null when the daily sweep found it. */
  event_id: string | null;
  /** The event's type, or `sweep` for the daily sweep. */
  event_type: string;
  /** Our reference when the object names one (`gc_…`, `gk_…`), else null. */
  reference: string | null;
  /** Why a person must look, in words. */
  why: string;
}

/** A processor account an environment connected (store/processors.ts, migrations 099 and 105). */
export interface ProcessorRow {
  id: string;
  environment_id: string;
  type: ProcessorType;
  /** JSON of the processor's credentials (ProcessorCredentials), sealed at rest. */
  credentials: string;
  secret_key_last4: string;
  statement_descriptor: string | null;
  /** Moves on at every change: gateways built from an older version are built again. */
  version: number;
  /** Set by a DELETE: no new payment uses it; the rows it made still do. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 103: when the daily sweep compares its recent charges and refunds with our books next; null: at once. */
  sweep_due_at: string | null;
}

/** When a processor last delivered a webhook that verified (store/processor-deliveries.ts, migration 106). */
/** A Redsys order number in use on a terminal, and the payment reference of ours it names (migration 109). */
export interface RedsysOrderRow {
  merchant_code: string;
  terminal: string;
  order_number: string;
  reference: string;
  processor_id: string;
  created_at: string;
}

export interface RedsysOperationRow {
  reference: string;
  merchant_code: string;
  terminal: string;
  order_number: string;
  kind: 'capture' | 'refund' | 'void';
  amount: number;
  currency_code: string;
  count_before: number | null;
  sent_at: string;
}

/** A named filter of the payments list, one member's in one environment (migration 116). */
export interface SavedViewRow extends Owned {
  user_id: string;
  name: string;
  /** The list's query string without its page (`status=refunded&currency=EUR`). */
  query: string;
}

/** A member's note on a payment, for the team only (migration 127): never sent in webhooks or the API. */
export interface PaymentNoteRow {
  id: string;
  environment_id: string;
  transaction_id: string;
  author_user_id: string;
  body: string;
  created_at: string;
}

export interface ProcessorDeliveryRow {
  processor_id: string;
  last_verified_at: string;
}

/** What the merchant's own processor account settled for a sale (store/processor-settlements.ts, migration 107). */
export interface SaleProcessorSettlementRow {
  sale_id: string;
  /** The processor's id of its record of the payment (Stripe's balance transaction, `txn_…`). */
  record: string;
  /** Upper-case ISO 4217: the currency the processor settled in. */
  currency: string;
  /** The processor's minor units of `currency`. */
  amount: number;
  fee: number;
  net: number;
  available_on: string | null;
  created_at: string;
}

/** A client's own customer object at a connected processor account (a Stripe Customer; migration 104). */
export interface ProcessorCustomerRow extends Owned {
  processor_id: string;
  client_id: string;
  /** The processor's id of it (`cus_…`). */
  customer: string;
}

/** A payout of a merchant's own processor account to the merchant's bank (Stripe's `payout`; migration 140). */
export interface ProcessorPayoutRow extends Owned {
  processor_id: string;
  /** The processor's id of it (`po_…`): one row per processor and payout. */
  payout: string;
  /** The processor's minor units of `currency` (upper-case ISO 4217). */
  amount: number;
  currency: string;
  status: ProcessorPayoutStatus;
  /** ISO time: when the processor expects the money in the bank (or it arrived). */
  arrival_date: string;
  failure_message: string | null;
  /** ISO time: when the processor made it. */
  payout_created_at: string;
}

/**
 * What the sandbox processor did for one of our references (migration 141): its own books,
 * written by payments/sandbox-books.ts through store/sandbox-books.ts, never by our records.
 */
export interface SandboxChargeRow {
  /** Our idempotency reference of the call (`gc_…`): one entry per reference. */
  reference: string;
  /** JSON: the call's answer (a SettledResult or an ActionResult), repeated to a repeat. */
  answer: string;
  /** JSON: the LookupResult a lookup of the reference answers. */
  found: string;
  created_at: string;
}

/**
 * A session the sandbox processor opened (migration 143): a redirect's page or an issuer's
 * challenge, found by whichever process the customer's next step reaches. Written by
 * payments/sandbox-sessions.ts through store/sandbox-sessions.ts.
 */
export interface SandboxSessionRow {
  /** The processor's id of the session: `sbx_session_<reference>` or `chl_<reference>`. */
  id: string;
  /** JSON: what the sandbox needs of the session (a card's summary at most, never its number or CVC). */
  state: string;
  created_at: string;
}

export const PROCESSOR_TYPES = ['stripe', 'redsys'] as const;
export type ProcessorType = (typeof PROCESSOR_TYPES)[number];

/** A SEPA payout file (pain.001) of one environment's payouts (docs/balance.md#payout-files). */
export interface PayoutFileRow extends Owned {
  /** Its MsgId: the id without hyphens. */
  message_id: string;
  version: 'pain.001.001.09' | 'pain.001.001.03';
  state: PayoutFileState;
  currency: string;
  debtor_iban: string;
  payout_count: number;
  /** Minor units. */
  control_sum: number;
  execution_date: string;
  /** The file as written: every download is the same bytes. */
  xml: string;
  download_count: number;
  downloaded_at: string | null;
  cancelled_at: string | null;
}

/** A payout in a file; `active` 1 while the file is not cancelled (one active item per payout). */
export interface PayoutFileItemRow {
  id: string;
  file_id: string;
  environment_id: string;
  kind: PayoutKind;
  payout_id: string;
  end_to_end_id: string;
  payment_info_id: string;
  amount: number;
  active: number;
}

/** A camt.053 / camt.054 report imported, by its key (unique per environment). */
export interface BankStatementReportRow {
  id: string;
  environment_id: string;
  report_key: string;
  kind: 'camt.053' | 'camt.054';
  file_name: string;
  created_at: string;
}

/** A booked statement line that matched no payout, for a person. */
export interface BankStatementLineRow {
  id: string;
  environment_id: string;
  report_id: string;
  entry: number;
  reference: string | null;
  direction: 'CRDT' | 'DBIT';
  amount: number;
  currency: string;
  why: string;
  created_at: string;
}

/** A pain.002 status report imported, with the file it answered. */
export interface PayoutStatusReportRow {
  id: string;
  environment_id: string;
  file_id: string;
  message_id: string;
  rejected_count: number;
  created_at: string;
}

export interface Tables {
  environments: EnvironmentRow;
  auth_changes: AuthChangesRow;
  payers: PayerRow;
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
  payment_challenges: PaymentChallengeRow;
  secrets: { name: string; value: string };
  events: EventRow;
  event_deliveries: EventDeliveryRow;
  delivery_attempts: DeliveryAttemptRow;
  webhook_endpoints: WebhookEndpointRow;
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
  users: UserRow;
  memberships: MembershipRow;
  invites: InviteRow;
  password_resets: PasswordResetRow;
  payout_account_links: PayoutAccountLinkRow;
  notification_preferences: NotificationPreferenceRow;
  dashboard_sessions: DashboardSessionRow;
  audit_log: AuditRow;
  mails: MailRow;
  brand_logos: { environment_id: string; sha256: string; content_type: string; data: Uint8Array; created_at: string };
  sign_in_failures: { key: string; failures: number; window_start: string };
  api_keys: ApiKeyRow;
  api_requests: ApiRequestRow;
  api_key_reveals: ApiKeyRevealRow;
  balance_transactions: BalanceTransactionRow;
  sale_sources: SaleSourceRow;
  source_refunds: SourceRefundRow;
  environment_pricing: EnvironmentPricingRow;
  disputes: DisputeRow;
  dispute_files: DisputeFileRow;
  user_totp: UserTotpRow;
  totp_recovery_codes: { user_id: string; code_hash: string; used_at: string | null };
  sign_in_challenges: { id_hash: string; user_id: string; expires_at: string; created_at: string };
  merchant_payout_settings: MerchantPayoutSettingsRow;
  merchant_payouts: MerchantPayoutRow;
  processors: ProcessorRow;
  processor_deliveries: ProcessorDeliveryRow;
  saved_views: SavedViewRow;
  payment_notes: PaymentNoteRow;
  redsys_orders: RedsysOrderRow;
  redsys_operations: RedsysOperationRow;
  processor_customers: ProcessorCustomerRow;
  sale_processor_settlements: SaleProcessorSettlementRow;
  processor_payouts: ProcessorPayoutRow;
  sandbox_charges: SandboxChargeRow;
  sandbox_sessions: SandboxSessionRow;
  payout_files: PayoutFileRow;
  payout_file_items: PayoutFileItemRow;
  bank_statement_reports: BankStatementReportRow;
  bank_statement_lines: BankStatementLineRow;
  payout_status_reports: PayoutStatusReportRow;
  processor_attention: ProcessorAttentionRow;
}
