import cc from 'currency-codes';

// ISO 4217 from the maintained `currency-codes` data set, not typed by hand. Entries
// whose only "countries" are ISO's ZZnn pseudo-entries (precious metals, bond units, the
// testing and no-currency codes) have no minor unit and are not payable currencies.
export interface Currency {
  code: string;
  numeric: string;
  name: string;
  exponent: number;
}

export const CURRENCIES: ReadonlyMap<string, Currency> = new Map(
  cc.data
    .filter((c) => !c.countries.every((country) => /^zz\d/i.test(country)))
    .map((c) => [c.code, { code: c.code, numeric: c.number, name: c.currency, exponent: c.digits }]),
);

export function findCurrency(code: string): Currency | undefined {
  return CURRENCIES.get(code);
}

/** The number of decimals of `currency`'s minor unit (EUR 2, JPY 0, KWD 3); 2 when the code is unknown. */
export function exponentOf(currency: string): number {
  return findCurrency(currency)?.exponent ?? 2;
}
