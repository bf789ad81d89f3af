// A shop's time zone: the dashboard writes its times, cuts its days and dates its exports in
// it (an IANA name, `UTC` by default). Rows keep storing UTC instants; only what people read
// and the days they pick are the zone's. Pure: Intl's tz database, no clock.

export const DEFAULT_TIME_ZONE = 'UTC';

/** Every zone the runtime knows, by IANA name (`UTC` first: Intl lists only regions). */
export const TIME_ZONES: readonly string[] = [DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone').filter((z) => z !== DEFAULT_TIME_ZONE)];

const KNOWN = new Set(TIME_ZONES);
export const isTimeZone = (name: string): boolean => KNOWN.has(name);

const DAY_MS = 86_400_000;

/** Numeric parts of a moment in a zone, cached per zone (a formatter costs far more than a format). */
const partsFormat = new Map<string, Intl.DateTimeFormat>();
function partsOf(at: Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    partsFormat.set(timeZone, f);
  }
  const out = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const p of f.formatToParts(at)) if (p.type in out) out[p.type as keyof typeof out] = Number(p.value);
  return out;
}

/** How far ahead of UTC the zone's clocks are at `at`, to the second (local mean times before 1900 have seconds). */
function offsetMs(at: Date, timeZone: string): number {
  const p = partsOf(at, timeZone);
  // Not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  const local = new Date(0);
  local.setUTCFullYear(p.year, p.month - 1, p.day);
  local.setUTCHours(p.hour, p.minute, p.second);
  return local.getTime() - Math.floor(at.getTime() / 1000) * 1000;
}

/** How far ahead of UTC the zone's clocks are at `at`, in minutes (Madrid in winter: 60). */
export const offsetMinutes = (at: Date, timeZone: string): number => Math.round(offsetMs(at, timeZone) / 60_000);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The zone's calendar day at `at`, as `YYYY-MM-DD`. */
export function zonedDay(at: Date, timeZone: string): string {
  const p = partsOf(at, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A real calendar date as `YYYY-MM-DD` (2026-02-30 is none) whose day a zone can place: not in
 * the year 0000 (Intl writes it as 1 BC, so none of its days is ever found in a zone), nor
 * 9999-12-31 (a day ends where the next starts, and that one has no `YYYY-MM-DD`).
 */
export function isCalendarDay(text: string): boolean {
  if (!DAY.test(text) || text.startsWith('0000') || text === '9999-12-31') return false;
  const at = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(text);
}

/** The calendar day `days` after `day` (negative: before), as `YYYY-MM-DD`. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The first instant of the zone's calendar `day` (`YYYY-MM-DD`): its midnight, or, where a
 * clock change skips midnight, the first moment the day has.
 */
export function dayStart(day: string, timeZone: string): Date {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  // The zone's offsets around that midnight (two across a clock change): each gives a
  // candidate; those that fall on the day itself, the earliest is its start.
  const offsets = new Set([-DAY_MS / 2, DAY_MS / 2].map((d) => offsetMs(new Date(midnight + d), timeZone)));
  const starts = [...offsets].map((o) => midnight - o).filter((at) => zonedDay(new Date(at), timeZone) === day);
  // A day the zone skipped whole (Samoa's 30 December 2011) starts where the next one does: it holds no moment.
  if (!starts.length) return dayStart(addDays(day, 1), timeZone);
  return new Date(Math.min(...starts));
}

/** An instant as ISO 8601 in the zone's local time with its offset: `2026-12-02T17:05:00.000+01:00`. */
export function zonedIso(at: Date, timeZone: string): string {
  const p = partsOf(at, timeZone);
  const offset = offsetMinutes(at, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const local = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}.${pad(at.getUTCMilliseconds(), 3)}`;
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
