import { CURRENCIES } from './currencies';
import { MAX_UNITS } from './money';
import { referenceKey } from './payment-reference';
import { addDays, dayStart, isCalendarDay } from './time-zone';

// What one search box means over transactions. A person types an order id, a token, a
// customer's email, a card's last four digits or an amount; the box does not say which, so
// the text is read every way it can be and a transaction matching any of them is found.

export interface SearchTerms {
  /** A part of the order id (any text). */
  text: string;
  /** Tokens are URL-safe base64: only such a text can be one. */
  token?: string;
  /** A part of an email address (a text with an @). */
  email?: string;
  /** Four digits: a card's last four. */
  last4?: string;
  /** The amount in minor units at each exponent the typed decimals allow, with the currencies of that exponent. */
  amounts: { units: number; currencies: Currencies }[];
  /** A payment's reference ("AA20-78BF"): its sale id's last eight hex digits, lower case. */
  reference?: string;
  /** Words read as a bank statement line ("4444 37.50"): a card payment matching every one. */
  statement?: StatementWord[];
}

/** The currencies of one exponent: listed, or every currency but the listed ones (the common exponent, 2). */
export type Currencies = { in: string[] } | { notIn: string[] };

export const MAX_SEARCH_LENGTH = 200;
const AMOUNT = /^(\d{1,15})(?:[.,](\d{1,4}))?$/;
const COMMON_EXPONENT = 2;

const codesByExponent = new Map<number, string[]>();
for (const c of CURRENCIES.values()) codesByExponent.set(c.exponent, [...(codesByExponent.get(c.exponent) ?? []), c.code]);
const uncommonCodes = [...codesByExponent].filter(([e]) => e !== COMMON_EXPONENT).flatMap(([, codes]) => codes);
const currenciesOf = (e: number): Currencies => (e === COMMON_EXPONENT ? { notIn: uncommonCodes } : { in: codesByExponent.get(e) ?? [] });

/** A decimal typed by a person ("12.5", "12,50", "1200") in minor units of each exponent it fits. */
function amountsOf(text: string): SearchTerms['amounts'] {
  const m = AMOUNT.exec(text);
  if (!m) return [];
  const [, whole, fraction = ''] = m;
  const exponents = new Set([COMMON_EXPONENT, ...codesByExponent.keys()]);
  const found: SearchTerms['amounts'] = [];
  for (const e of [...exponents].sort((a, b) => a - b)) {
    // Trailing zeros are no decimals: "1200.00" is an amount in JPY too, "12.5" is not.
    const significant = fraction.replace(/0+$/, '');
    if (significant.length > e) continue;
    const units = BigInt(whole!) * 10n ** BigInt(e) + BigInt(significant.padEnd(e, '0') || '0');
    if (units > MAX_UNITS) continue;
    found.push({ units: Number(units), currencies: currenciesOf(e) });
  }
  return found;
}

/**
 * A bound of the payments list's amount range ("10", "12,5") in minor units at each exponent,
 * with the currencies of that exponent: a lower bound rounds up, an upper one down, so
 * "0.5" to "1.5" holds ¥1 and nothing else in yen. Undefined for a text that is no amount.
 */
export function amountBound(text: string, side: 'min' | 'max'): SearchTerms['amounts'] | undefined {
  const m = AMOUNT.exec(text.trim());
  if (!m) return undefined;
  const [, whole, fraction = ''] = m;
  return [...new Set([COMMON_EXPONENT, ...codesByExponent.keys()])].map((e) => {
    const exact = BigInt(whole!) * 10n ** BigInt(e) + BigInt(fraction.slice(0, e).padEnd(e, '0') || '0');
    const cut = /[1-9]/.test(fraction.slice(e));
    const units = side === 'min' && cut ? exact + 1n : exact;
    return { units: Number(units > MAX_UNITS ? MAX_UNITS + 1n : units), currencies: currenciesOf(e) };
  });
}

/** Whether a typed range's lowest amount is above its highest (both already read by amountBound): such a range finds nothing. */
export function amountsBackwards(min: string, max: string): boolean {
  const exact = (text: string) => {
    const [, whole = '0', fraction = ''] = AMOUNT.exec(text.trim()) ?? [];
    return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
  };
  return exact(min) > exact(max);
}

/** Every reading of a search text, a date in it a day of the shop's `timeZone`; undefined for a blank one. */
export function searchTerms(raw: string, timeZone: string): SearchTerms | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  return {
    text,
    token: /^[A-Za-z0-9_-]{16,}$/.test(text) ? text : undefined,
    email: text.includes('@') ? text.toLowerCase() : undefined,
    last4: /^\d{4}$/.test(text) ? text : undefined,
    amounts: amountsOf(text),
    reference: referenceKey(text),
    // One word is read above already; two or more together, as a statement line.
    statement: /\s/.test(text) ? statementWords(text, timeZone) : undefined,
  };
}

/** `text` as a LIKE pattern that matches it anywhere, its own % _ and \ taken literally (with ESCAPE '\'). */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One word of a text read as a bank statement shows a card payment: a calendar day
 * (2026-11-20), a card's last four, an amount, or two of these at once ("4242" is last
 * four digits and an amount). The words may come in any order.
 */
export interface StatementWord {
  last4?: string;
  amounts: SearchTerms['amounts'];
  /** A real date (YYYY-MM-DD), a whole day of the shop's time zone: the instants it spans, `from` included, `before` not. */
  day?: { from: string; before: string };
}

/** More words than a statement line has: not read as one. */
export const MAX_STATEMENT_WORDS = 4;

/** A date as the merchant means it: a day where the shop is, not a UTC day (a payment at 00:30 in Auckland is on that day there). */
const zonedDaySpan = (day: string, timeZone: string) => ({ from: dayStart(day, timeZone).toISOString(), before: dayStart(addDays(day, 1), timeZone).toISOString() });

/** The text as a statement line, every word read every way it can be, a date as a day of `timeZone`; undefined when a word is none of them. */
export function statementWords(raw: string, timeZone: string): StatementWord[] | undefined {
  const words = raw.trim().split(/\s+/).filter(Boolean);
  if (!words.length || words.length > MAX_STATEMENT_WORDS) return undefined;
  const read: StatementWord[] = [];
  for (const w of words) {
    const word: StatementWord = { last4: /^\d{4}$/.test(w) ? w : undefined, amounts: amountsOf(w), day: isCalendarDay(w) ? zonedDaySpan(w, timeZone) : undefined };
    if (!word.last4 && !word.amounts.length && !word.day) return undefined;
    read.push(word);
  }
  return read;
}
