import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths, type Interval, period, periodStart, retryAt } from '../../server/domain/periods';
import { awaitingCustomerSchedule, failedSchedule, type Schedule } from '../../server/domain/subscription-schedule';
import { civil, iso, modelPeriodStart, type Unit } from './periods-model';

// The scheduler's period arithmetic against the independent model in periods-model.ts.

const TWO_YEARS_MS = 2 * 366 * 86_400_000;

const startArb = fc
  .record({
    y: fc.integer({ min: 1999, max: 2101 }),
    m: fc.integer({ min: 1, max: 12 }),
    // Month ends are the hard part: a third of the days are 28–31.
    d: fc.oneof(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 28, max: 31 })),
    msOfDay: fc.integer({ min: 0, max: 86_399_999 }),
  })
  .map(({ y, m, d, msOfDay }) => civil(y, m, d, msOfDay));

const leapDayArb = fc
  .record({ y: fc.constantFrom(2000, 2004, 2024, 2028, 2096), msOfDay: fc.integer({ min: 0, max: 86_399_999 }) })
  .map(({ y, msOfDay }) => civil(y, 2, 29, msOfDay));

const cadenceArb = fc.record({
  interval: fc.constantFrom<Interval>('day', 'week', 'month', 'year'),
  intervalCount: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 365 })),
});

describe('billing periods', () => {
  it('two years of periods match the independent model, contiguous, none skipped or repeated (property)', () => {
    fc.assert(
      fc.property(fc.oneof(startArb, leapDayArb), cadenceArb, (start, cadence) => {
        const anchor = new Date(iso(start));
        const horizon = anchor.getTime() + TWO_YEARS_MS;
        const unit = cadence.interval as Unit;
        const scheduled: string[] = [];
        const modelled: string[] = [];
        let contiguous = true;
        let previousEnd: number | null = null;
        for (let n = 0; ; n++) {
          const p = period(anchor, cadence, n);
          if (p.start.getTime() > horizon) break;
          scheduled.push(`${p.start.toISOString()}/${p.end.toISOString()}`);
          modelled.push(`${iso(modelPeriodStart(start, unit, cadence.intervalCount, n))}/${iso(modelPeriodStart(start, unit, cadence.intervalCount, n + 1))}`);
          // Each period begins where the one before ended, and moves forward.
          if ((previousEnd !== null && p.start.getTime() !== previousEnd) || p.end <= p.start) contiguous = false;
          previousEnd = p.end.getTime();
        }
        expect(scheduled).toEqual(modelled);
        expect(contiguous).toBe(true);
        expect(new Set(scheduled).size).toBe(scheduled.length);
        expect(scheduled.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
    // Under a second alone; the machine is shared.
  }, 30_000);

  it('clamps month ends from the anchor: started 31 January, charged on the last day of shorter months', () => {
    const anchor = new Date('2027-01-31T10:00:00.000Z');
    const monthly = { interval: 'month' as const, intervalCount: 1 };
    const starts = Array.from({ length: 5 }, (_, n) => periodStart(anchor, monthly, n).toISOString().slice(0, 10));
    expect(starts).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
    expect(periodStart(new Date('2028-01-31T00:00:00Z'), monthly, 1).toISOString().slice(0, 10)).toBe('2028-02-29');
    // 29 February, yearly: 28 February in common years, 29 again in the next leap year.
    const leapDay = new Date('2028-02-29T12:00:00.000Z');
    const yearly = { interval: 'year' as const, intervalCount: 1 };
    expect([1, 4].map((n) => periodStart(leapDay, yearly, n).toISOString().slice(0, 10))).toEqual(['2029-02-28', '2032-02-29']);
    expect(addMonths(new Date('2027-03-31T00:00:00Z'), -1).toISOString().slice(0, 10)).toBe('2027-02-28');
  });

  it('retries a failed period 1, 3 and 5 days after its due date, then gives up', () => {
    const due = new Date('2027-05-10T08:00:00.000Z');
    expect([1, 2, 3, 4].map((f) => retryAt(due, f)?.toISOString() ?? null)).toEqual([
      '2027-05-11T08:00:00.000Z',
      '2027-05-13T08:00:00.000Z',
      '2027-05-15T08:00:00.000Z',
      null,
    ]);
  });

  it('a renewal that needs the customer waits for the link, and its next attempt is the period’s last, whatever the failures before', () => {
    const due = new Date('2027-05-10T08:00:00.000Z');
    const expires = new Date('2027-05-17T08:00:05.000Z');
    const cadence = { interval: 'month', intervalCount: 1 } as const;
    for (const failures of [0, 1, 2]) {
      const s: Schedule = { period: 3, anchorAt: due, anchorIndex: 0, failures, nextChargeAt: due, currentPeriodStart: null, currentPeriodEnd: null };
      const waiting = awaitingCustomerSchedule(s, expires);
      expect(waiting).toMatchObject({ period: 3, anchorIndex: 0, failures: 3, nextChargeAt: expires });
      expect(failedSchedule(waiting, cadence).giveUp).toBe(true);
    }
  });
});
