import { type DayFigure, FIGURE_DAYS, FIGURE_KINDS, type FigureKind, utcDay } from '../store/dashboard-figures';

// The home page's figures folded from the database's per-day, per-currency aggregates:
// the totals of today, the last 7 and the last 30 UTC days, and each currency's 30 days
// for the chart. Integer minor units throughout; only the page formats them.

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
  /** The last FIGURE_DAYS UTC days, oldest first, per kind. */
  days: { day: string; figures: Record<FigureKind, Tally> }[];
}

const emptyKinds = (): Record<FigureKind, Tally> =>
  Object.fromEntries(FIGURE_KINDS.map((k) => [k, { count: 0, amount: 0 }])) as Record<FigureKind, Tally>;

const add = (into: Tally, f: DayFigure) => {
  into.count += f.count;
  into.amount += f.amount;
};

/** The figures per currency (alphabetical), every one of the 30 days present even when nothing happened. */
export function foldFigures(rows: DayFigure[], now: Date): CurrencyFigures[] {
  const days = Array.from({ length: FIGURE_DAYS }, (_, i) => utcDay(now, FIGURE_DAYS - 1 - i));
  const firstOf = Object.fromEntries(PERIODS.map((p) => [p, utcDay(now, p - 1)])) as Record<Period, string>;
  const byCurrency = new Map<string, CurrencyFigures>();
  for (const row of rows) {
    let c = byCurrency.get(row.currency);
    if (!c) {
      c = {
        currency: row.currency,
        periods: { 1: emptyKinds(), 7: emptyKinds(), 30: emptyKinds() },
        days: days.map((day) => ({ day, figures: emptyKinds() })),
      };
      byCurrency.set(row.currency, c);
    }
    const slot = c.days.find((d) => d.day === row.day);
    if (!slot) continue; // a row of a day outside the window (the clock moved between queries)
    add(slot.figures[row.kind], row);
    for (const p of PERIODS) if (row.day >= firstOf[p]) add(c.periods[p][row.kind], row);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
