import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, dayStart, isCalendarDay, isTimeZone, offsetMinutes, TIME_ZONES, zonedDay, zonedIso } from '../../server/domain/time-zone';

// The shop's days and times (server/domain/time-zone.ts), checked on the days clocks change,
// in zones whose offsets are not whole hours, and for any moment in any zone.

describe('a shop’s time zone', () => {
  it('knows the runtime’s zones and UTC, and nothing else', () => {
    expect(TIME_ZONES[0]).toBe('UTC');
    expect(isTimeZone('Europe/Madrid')).toBe(true);
    expect(isTimeZone('Australia/Lord_Howe')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('europe/madrid')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('starts each day at its midnight, or at the first moment a clock change leaves it', () => {
    const starts: [string, string, string][] = [
      ['2026-12-02', 'UTC', '2026-12-02T00:00:00.000Z'],
      ['2026-12-02', 'Europe/Madrid', '2026-12-01T23:00:00.000Z'],
      // Spring forward at 02:00 and back at 03:00: midnight is untouched, the day is 23 or 25 hours.
      ['2026-03-29', 'Europe/Madrid', '2026-03-28T23:00:00.000Z'],
      ['2026-03-30', 'Europe/Madrid', '2026-03-29T22:00:00.000Z'],
      ['2026-10-25', 'Europe/Madrid', '2026-10-24T22:00:00.000Z'],
      ['2026-10-26', 'Europe/Madrid', '2026-10-25T23:00:00.000Z'],
      // Chile moves its clocks at midnight: in September the day starts at 01:00; in April
      // midnight comes twice and the day starts at the second.
      ['2026-09-06', 'America/Santiago', '2026-09-06T04:00:00.000Z'],
      ['2026-04-05', 'America/Santiago', '2026-04-05T04:00:00.000Z'],
      ['2026-12-02', 'Asia/Kolkata', '2026-12-01T18:30:00.000Z'],
      ['2026-12-02', 'Asia/Kathmandu', '2026-12-01T18:15:00.000Z'],
      ['2026-12-02', 'Pacific/Kiritimati', '2026-12-01T10:00:00.000Z'],
    ];
    for (const [day, zone, start] of starts) expect(dayStart(day, zone).toISOString(), `${day} in ${zone}`).toBe(start);
    // Samoa skipped 30 December 2011 whole: that day is empty, starting and ending where the 31st starts.
    expect(dayStart('2011-12-30', 'Pacific/Apia').toISOString()).toBe(dayStart('2011-12-31', 'Pacific/Apia').toISOString());
    expect(dayStart('2011-12-31', 'Pacific/Apia').toISOString()).toBe('2011-12-30T10:00:00.000Z');
  });

  it('writes a moment in local time with its offset, and names its day', () => {
    const at = new Date('2026-12-02T16:05:00.123Z');
    expect(zonedIso(at, 'UTC')).toBe('2026-12-02T16:05:00.123+00:00');
    expect(zonedIso(at, 'Europe/Madrid')).toBe('2026-12-02T17:05:00.123+01:00');
    expect(zonedIso(at, 'America/New_York')).toBe('2026-12-02T11:05:00.123-05:00');
    expect(zonedIso(at, 'Asia/Kathmandu')).toBe('2026-12-02T21:50:00.123+05:45');
    expect(zonedDay(new Date('2026-12-01T23:30:00Z'), 'Europe/Madrid')).toBe('2026-12-02');
    expect(zonedDay(new Date('2026-12-02T04:59:59Z'), 'America/New_York')).toBe('2026-12-01');
    expect(offsetMinutes(new Date('2026-07-01T12:00:00Z'), 'Europe/Madrid')).toBe(120);
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('puts any moment in exactly one day of any zone: the one its start and the next day’s surround', () => {
    const moment = fc.integer({ min: Date.parse('1990-01-01T00:00:00Z'), max: Date.parse('2040-01-01T00:00:00Z') }).map((ms) => new Date(ms));
    fc.assert(
      fc.property(moment, fc.constantFrom(...TIME_ZONES), (at, zone) => {
        const day = zonedDay(at, zone);
        const start = dayStart(day, zone).getTime();
        const next = dayStart(addDays(day, 1), zone).getTime();
        expect(start).toBeLessThanOrEqual(at.getTime());
        expect(at.getTime()).toBeLessThan(next);
        // The ISO form reads back as the same moment.
        expect(Date.parse(zonedIso(at, zone))).toBe(at.getTime());
      }),
      { numRuns: 2_000 },
    );
  });

  it('takes as a day only a date a zone can place, and places every such day, the first and the last', () => {
    for (const text of ['2026-02-30', '2026-13-01', '26-01-01', ' 2026-01-01', '0000-01-01', '9999-12-31', '+02026-01-01']) expect(isCalendarDay(text), text).toBe(false);
    for (const text of ['2028-02-29', '0001-01-01', '0099-12-31', '9999-12-30']) expect(isCalendarDay(text), text).toBe(true);
    // Before the year 100 too (Date.UTC would read the year 99 as 1999).
    expect(dayStart('0099-12-31', 'UTC').toISOString()).toBe('0099-12-31T00:00:00.000Z');
    expect(offsetMinutes(new Date('0050-06-01T00:00:00Z'), 'UTC')).toBe(0);
    for (const zone of ['UTC', 'Pacific/Auckland', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      for (const day of ['0001-01-01', '9999-12-30']) expect(dayStart(addDays(day, 1), zone).getTime()).toBeGreaterThan(dayStart(day, zone).getTime());
    }
  });
});
