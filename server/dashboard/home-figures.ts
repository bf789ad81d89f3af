import { addDays, dayStart, zonedDay } from '../domain/time-zone';
import { FIGURE_KINDS, type FigureKind, type QuarterFigure } from '../store/dashboard-figures';

// The home page's figures folded from the database's per-quarter-hour, per-currency
// aggregates into the shop's days (its time zone): the totals of today, the last 7 and the
// last 30 days, and each currency's 30 days for the chart. Integer minor units throughout;
// only the page formats them.

/** How many days the home shows, today included. */
const FIGURE_DAYS = 30;

export const PERIODS = [1, 7, 30] as const;
export type Period = (typeof PERIODS)[number];

export interface Tally {
  count: number;
  amount: number;
}

/** One currency's figures. */
export interface CurrencyFigures {
  currency: string;
  /** Per period (days, today included), per kind. */
  periods: Record<Period, Record<FigureKind, Tally>>;
  /** The last FIGURE_DAYS days of the shop's time zone, oldest first, per kind. */
  days: { day: string; figures: Record<FigureKind, Tally> }[];
}

const emptyKinds = (): Record<FigureKind, Tally> =>
  Object.fromEntries(FIGURE_KINDS.map((k) => [k, { count: 0, amount: 0 }])) as Record<FigureKind, Tally>;

const add = (into: Tally, f: QuarterFigure) => {
  into.count += f.count;
  into.amount += f.amount;
};

/** The shop's last FIGURE_DAYS days (`YYYY-MM-DD`, oldest first) and the moment the first begins. */
export function figureDays(now: Date, timeZone: string): { days: string[]; since: Date } {
  const today = zonedDay(now, timeZone);
  const days = Array.from({ length: FIGURE_DAYS }, (_, i) => addDays(today, i - (FIGURE_DAYS - 1)));
  return { days, since: dayStart(days[0]!, timeZone) };
}

/** The figures per currency (alphabetical), every one of the 30 days present even when nothing happened. */
export function foldFigures(rows: QuarterFigure[], now: Date, timeZone: string): CurrencyFigures[] {
  const { days } = figureDays(now, timeZone);
  // Each day's first moment, and the next day's after the last: a quarter belongs to the
  // last day that starts at or before it.
  const starts = [...days, addDays(days.at(-1)!, 1)].map((day) => dayStart(day, timeZone).getTime());
  const dayOf = (quarter: string) => {
    const at = Date.parse(`${quarter}:00Z`);
    if (at < starts[0]! || at >= starts.at(-1)!) return -1; // outside the window (the clock moved between queries)
    let i = 0;
    while (starts[i + 1]! <= at) i++;
    return i;
  };
  const firstOf = Object.fromEntries(PERIODS.map((p) => [p, FIGURE_DAYS - p])) as Record<Period, number>;
  const byCurrency = new Map<string, CurrencyFigures>();
  for (const row of rows) {
    const index = dayOf(row.quarter);
    if (index < 0) continue;
    let c = byCurrency.get(row.currency);
    if (!c) {
      c = {
        currency: row.currency,
        periods: { 1: emptyKinds(), 7: emptyKinds(), 30: emptyKinds() },
        days: days.map((day) => ({ day, figures: emptyKinds() })),
      };
      byCurrency.set(row.currency, c);
    }
    add(c.days[index]!.figures[row.kind], row);
    for (const p of PERIODS) if (index >= firstOf[p]) add(c.periods[p][row.kind], row);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
