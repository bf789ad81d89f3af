import type { Language } from '../../widget/i18n/language';
import { exponentOf } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { signupOpen, type SubscriptionStatus } from '../domain/subscription-states';
import type { PeriodCharge, StoredSubscription } from '../store/subscriptions';

// A subscription as the API shows it (and as its events carry it), with its charges.

/**
 * The page of the period's attempt that the issuer declined until the customer
 * authenticates (payments/subscription-period.ts), while that attempt is the latest: a
 * later one (made when the link expired or was closed) was recorded at or after its expiry.
 */
function confirmUrlOf(c: PeriodCharge, baseUrl: string): string | null {
  const latest = c.confirm_expires_at !== null && c.confirm_expires_at > c.updated_at;
  return c.status === 'failed' && c.failure === 'authentication_required' && c.confirm_token && latest ? `${baseUrl}/pay/confirm/${c.confirm_token}/` : null;
}

function presentCharge(c: PeriodCharge, baseUrl: string) {
  return {
    period: c.period,
    period_start: c.period_start,
    period_end: c.period_end,
    amount: unitsToNumber(c.amount, exponentOf(c.currency)),
    currency: c.currency,
    status: c.status,
    attempts: c.attempts,
    failure: c.failure,
    transaction: c.transaction_id,
    sale: c.sale_id,
    confirm_url: confirmUrlOf(c, baseUrl),
  };
}

export function presentSubscription({ row, charges }: StoredSubscription, baseUrl: string) {
  return {
    id: row.id,
    plan: row.plan_ref,
    client: row.client_ref,
    subscription_id: row.subscription_id,
    authorization: row.authorization_id,
    status: row.status as SubscriptionStatus,
    payment_url: signupOpen(row) ? `${baseUrl}/pay/${row.token}/` : null,
    notify_url: row.notify_url,
    return_url: row.return_url,
    cancel_url: row.cancel_url,
    language: row.language as Language | null,
    customer_email: row.customer_email ?? null,
    plan_name: row.plan_name,
    amount: unitsToNumber(row.amount, exponentOf(row.currency)),
    currency: row.currency,
    interval: row.interval,
    interval_count: row.interval_count,
    trial_days: row.trial_days,
    started: row.started_at,
    trial_end: row.trial_end,
    current_period_start: row.current_period_start,
    current_period_end: row.current_period_end,
    next_charge_date: row.next_charge_at,
    failed_attempts: row.failures,
    paused: row.paused_at,
    stopped: row.stopped_at,
    stop_reason: row.stop_reason,
    charges: charges.map((c) => presentCharge(c, baseUrl)),
    created: row.created_at,
    updated: row.updated_at,
  };
}
