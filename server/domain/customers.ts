// Who a customer is and what they are worth. A payer is known by the email left on a
// payment, written however they typed it: one customer per address, spaces around it and
// capitals aside. A customer's lifetime value is what they paid less what was refunded to
// them, per currency (amounts in different currencies never add up), in integer minor units.

/** The one form of an email two payments of the same customer share. */
export const customerKey = (email: string) => email.trim().toLowerCase();

/** What a customer's sales in one currency add up to, minor units. */
export interface SaleTotals {
  currency: string;
  captured: number;
  refunded: number;
}

export interface Value {
  currency: string;
  /** Paid less refunded, minor units. */
  units: number;
}

function integer(n: number): number {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an amount in minor units: ${n}`);
  return n;
}

/** Paid less refunded per currency, currencies in alphabetical order; none paid: an empty list. */
export function lifetimeValue(totals: readonly SaleTotals[]): Value[] {
  const by = new Map<string, number>();
  for (const { currency, captured, refunded } of totals) by.set(currency, integer((by.get(currency) ?? 0) + integer(captured) - integer(refunded)));
  return [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([currency, units]) => ({ currency, units }));
}

/** Each customer's lifetime value, by customer key, from sale totals keyed by customer. */
export function lifetimeValues(totals: readonly (SaleTotals & { key: string })[]): Map<string, Value[]> {
  const grouped = new Map<string, SaleTotals[]>();
  for (const t of totals) grouped.set(t.key, [...(grouped.get(t.key) ?? []), t]);
  return new Map([...grouped].map(([key, list]) => [key, lifetimeValue(list)]));
}
