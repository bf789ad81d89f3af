// Billing periods: pure date arithmetic, in UTC. A subscription's periods are counted
// from an anchor (the start date, the end of the trial, or the resume date): period n
// begins at anchor + n × interval_count intervals. Each boundary is computed from the
// anchor, never from the previous boundary, so a month end clamped once (31 January →
// 28 February) does not drag every later period to the 28th.

export const INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface Cadence {
  interval: Interval;
  intervalCount: number;
}

const DAY_MS = 86_400_000;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `months` calendar months after `from`, the day clamped to the target month's last day. */
export function addMonths(from: Date, months: number): Date {
  const total = from.getUTCFullYear() * 12 + from.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/** Where period `n` (0-based) of a run anchored at `anchor` begins. */
export function periodStart(anchor: Date, cadence: Cadence, n: number): Date {
  const steps = n * cadence.intervalCount;
  switch (cadence.interval) {
    case 'day':
      return addDays(anchor, steps);
    case 'week':
      return addDays(anchor, 7 * steps);
    case 'month':
      return addMonths(anchor, steps);
    case 'year':
      return addMonths(anchor, 12 * steps);
  }
}

export interface Period {
  start: Date;
  end: Date;
}

export function period(anchor: Date, cadence: Cadence, n: number): Period {
  return { start: periodStart(anchor, cadence, n), end: periodStart(anchor, cadence, n + 1) };
}

/**
 * A period whose charge failed is tried again this many days after its due date; after a
 * failure with no retry left the subscription is stopped.
 */
export const RETRY_AFTER_DAYS = [1, 3, 5] as const;

/** When to try the period again after `failures` failed attempts, or null: give up. */
export function retryAt(due: Date, failures: number): Date | null {
  const days = RETRY_AFTER_DAYS[failures - 1];
  return days === undefined ? null : addDays(due, days);
}
