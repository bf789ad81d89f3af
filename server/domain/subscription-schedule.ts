import { addDays, type Cadence, period, RETRY_AFTER_DAYS, retryAt } from './periods';

// How each event moves a subscription's schedule: pure, so the store only writes what
// this returns. Periods are charged in advance, at their start. The period owed next is
// index `anchorIndex` of the run anchored at `anchorAt`; `period` numbers it over the
// subscription's whole life and is never reused (the exactly-once key).

export interface Schedule {
  period: number;
  anchorAt: Date | null;
  anchorIndex: number;
  failures: number;
  nextChargeAt: Date | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
}

/** `start`: with trial days, the trial is the current period and the first charge is at its end. */
export function startSchedule(now: Date, trialDays: number, period: number): Schedule & { trialEnd: Date | null } {
  if (trialDays > 0) {
    const trialEnd = addDays(now, trialDays);
    return { period, anchorAt: trialEnd, anchorIndex: 0, failures: 0, nextChargeAt: trialEnd, currentPeriodStart: now, currentPeriodEnd: trialEnd, trialEnd };
  }
  return { period, anchorAt: now, anchorIndex: 0, failures: 0, nextChargeAt: now, currentPeriodStart: null, currentPeriodEnd: null, trialEnd: null };
}

/**
 * `active` after a pause: a new run starts at the resume date and its first period is
 * charged then. The paused time is owed nothing; the period in force when it was paused
 * keeps its dates.
 */
export function resumeSchedule(now: Date, current: Schedule): Schedule {
  return { ...current, anchorAt: now, anchorIndex: 0, failures: 0, nextChargeAt: now };
}

/** The period owed next: what a charge now would pay for. */
export function duePeriod(s: Schedule, cadence: Cadence) {
  return period(s.anchorAt!, cadence, s.anchorIndex);
}

/** Paid: the owed period becomes the current one and the next is owed from its end. */
export function chargedSchedule(s: Schedule, cadence: Cadence): Schedule {
  const paid = duePeriod(s, cadence);
  return {
    period: s.period + 1,
    anchorAt: s.anchorAt,
    anchorIndex: s.anchorIndex + 1,
    failures: 0,
    nextChargeAt: paid.end,
    currentPeriodStart: paid.start,
    currentPeriodEnd: paid.end,
  };
}

/**
 * Declined: the same period is tried again on the retry schedule (past_due), or, after
 * the last retry, never again (the subscription stops).
 */
export function failedSchedule(s: Schedule, cadence: Cadence): { schedule: Schedule; giveUp: boolean } {
  const failures = s.failures + 1;
  const retry = retryAt(duePeriod(s, cadence).start, failures);
  return { schedule: { ...s, failures, nextChargeAt: retry }, giveUp: retry === null };
}

/**
 * Declined until the customer authenticates, with retries left (else failedSchedule's
 * give-up applies): no retry while the customer may confirm it (off-session the issuer
 * would only decline again). The next attempt is when the link expires, and it is the
 * period's last: the retries it would have had are spent waiting for the customer.
 */
export function awaitingCustomerSchedule(s: Schedule, linkExpires: Date): Schedule {
  return { ...s, failures: Math.max(s.failures + 1, RETRY_AFTER_DAYS.length), nextChargeAt: linkExpires };
}
