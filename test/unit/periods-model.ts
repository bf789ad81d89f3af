// An independent model of billing periods, for property tests. It shares no code with
// server/domain/periods.ts and does not use Date arithmetic: civil dates are converted to
// day numbers with Howard Hinnant's days_from_civil, months are counted on (year, month)
// pairs with a table of month lengths and the Gregorian leap rule.
//
//   period n of a run anchored at A with cadence (unit, count) begins at
//     day, week:   A + n·count·(1 or 7) days
//     month, year: the same day-of-month n·count (·12) months later, or that month's
//                  last day when it is shorter; the time of day is kept.

const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const monthLength = (y: number, m: number) => (m === 2 && leap(y) ? 29 : LENGTHS[m - 1]!);

export interface Civil {
  y: number;
  m: number; // 1..12
  d: number;
  msOfDay: number;
}

function daysFromCivil({ y, m, d }: Civil): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number, msOfDay: number): Civil {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d, msOfDay };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function iso(c: Civil): string {
  const h = Math.floor(c.msOfDay / 3_600_000);
  const min = Math.floor((c.msOfDay % 3_600_000) / 60_000);
  const s = Math.floor((c.msOfDay % 60_000) / 1000);
  return `${pad(c.y, 4)}-${pad(c.m)}-${pad(c.d)}T${pad(h)}:${pad(min)}:${pad(s)}.${pad(c.msOfDay % 1000, 3)}Z`;
}

export type Unit = 'day' | 'week' | 'month' | 'year';

export function modelPeriodStart(anchor: Civil, unit: Unit, count: number, n: number): Civil {
  if (unit === 'day' || unit === 'week') {
    const days = n * count * (unit === 'week' ? 7 : 1);
    return civilFromDays(daysFromCivil(anchor) + days, anchor.msOfDay);
  }
  const months = n * count * (unit === 'year' ? 12 : 1);
  let y = anchor.y;
  let m = anchor.m;
  for (let i = 0; i < months; i++) {
    m++;
    if (m === 13) {
      m = 1;
      y++;
    }
  }
  return { y, m, d: Math.min(anchor.d, monthLength(y, m)), msOfDay: anchor.msOfDay };
}

/** A valid civil date in the given year range, days 29–31 and 29 February well represented. */
export function civil(y: number, m: number, wantedDay: number, msOfDay: number): Civil {
  return { y, m, d: Math.min(wantedDay, monthLength(y, m)), msOfDay };
}
