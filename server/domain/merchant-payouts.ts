import { balanced, type Posting } from './ledger';

// Payouts of the merchant's balance to its bank account: pure rules. A schedule makes at
// most one payout per currency and period (the period key is unique in the database); a
// manual payout is a period of its own. A payout pays out its lines, the available balance
// transactions not yet paid out, whatever their type: its amount is the sum of their net.

export const PAYOUT_SCHEDULES = ['daily', 'weekly', 'manual'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/** The balance transaction types a payout makes itself: never lines of a payout. */
export const PAYOUT_TYPES = ['payout', 'payout_failure'] as const;

const DAY_MS = 86_400_000;

/** The ISO 8601 week of a UTC instant: `2026-W48` (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeek(at: Date): string {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = new Date(day + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The period a scheduled payout made at `at` belongs to (UTC): a day `2026-11-27` or an ISO week `2026-W48`. */
export function periodKey(schedule: Exclude<PayoutSchedule, 'manual'>, at: Date): string {
  return schedule === 'daily' ? at.toISOString().slice(0, 10) : isoWeek(at);
}

/** A manual payout's period: its own, so manual payouts are never refused for a period. */
export const manualPeriod = (payoutId: string) => `manual:${payoutId}`;

/** The period as the API shows it: null for a manual payout. */
export const shownPeriod = (period: string) => (period.startsWith('manual:') ? null : period);

/**
 * What a payout of these lines pays: the sum of their net, in minor units, or null when
 * it is not positive (a balance that refunds have emptied pays nothing out).
 */
export function payoutAmount(nets: readonly (number | bigint)[]): bigint | null {
  const sum = nets.reduce<bigint>((s, n) => s + BigInt(n), 0n);
  return sum > 0n ? sum : null;
}

/** What the ledger names as the other side of a payout to the merchant. */
const merchantBank = (payoutId: string) => `merchant_payout:${payoutId}`;

/** The merchant's money leaves its balance for the outside world (`payouts`); a failed one comes back (reverseMovement). */
export function merchantPayoutPostings(payoutId: string, amount: bigint): Posting[] {
  if (amount <= 0n) throw new RangeError('a payout moves a positive amount');
  const counterpart = { with_external: merchantBank(payoutId) };
  return balanced([
    { account: { system: 'merchant' }, amount: -amount, counterpart },
    { account: { system: 'payouts' }, amount, counterpart },
  ]);
}
