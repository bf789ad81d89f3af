// What the card fields look like while the customer types: the number in its brand's
// groups, the expiry as "MM / YY", the caret where the customer expects it. Pure: the
// component applies the result to the input. The rules that decide validity stay in
// card.ts, which accepts every form this produces and every form a browser without
// JavaScript may send.
import { cardBrand, type CardBrand } from '../fields/card';
import type { GatewayField } from './view';

export interface Formatted {
  value: string;
  /** Where the caret goes in `value`. */
  caret: number;
}

/** Where a space goes, by digit index; every other brand prints 4-4-4-4(-3). */
const GAPS: Partial<Record<CardBrand, readonly number[]>> = {
  amex: [4, 10],
  diners: [4, 10],
};
const DEFAULT_GAPS = [4, 8, 12, 16];
const MAX_DIGITS: Partial<Record<CardBrand, number>> = { amex: 15 };

export type Formatter = (raw: string, deleting: boolean) => string;

const digitsOf = (value: string) => value.replace(/\D/g, '');

/** "4242424242424242" → "4242 4242 4242 4242"; American Express "3782 822463 10005". */
export function groupCardNumber(number: string): string {
  const brand = cardBrand(number);
  const digits = digitsOf(number).slice(0, (brand && MAX_DIGITS[brand]) || 19);
  const gaps = (brand && GAPS[brand]) || DEFAULT_GAPS;
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (gaps.includes(i) ? ' ' : '') + digits[i];
  return out;
}

/**
 * Year digits of a pasted or autofilled "12/2034", "12 / 34", "1234" or "122034": the
 * month (zero-padded) and the year's last two digits, or the digits as typed so far.
 */
function expiryDigits(raw: string, deleting: boolean): string {
  // While deleting, the month is being edited: "1 / 34" is not January.
  const full = deleting ? null : /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (full) return full[1]!.padStart(2, '0') + full[2]!.slice(-2);
  const digits = digitsOf(raw);
  return digits.length === 6 ? digits.slice(0, 2) + digits.slice(4) : digits.slice(0, 4);
}

/**
 * "MM / YY" from what is in the field. Typing "1" waits (10–12 may follow); "4" is April and
 * becomes "04 / ". The separator appears once the month is complete, except while
 * deleting, so Backspace can remove it.
 */
export function formatExpiry(raw: string, deleting = false): string {
  let digits = expiryDigits(raw, deleting);
  if (!deleting && /^[2-9]$/.test(digits)) digits = `0${digits}`;
  if (digits.length < 2 || (digits.length === 2 && deleting)) return digits;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

/** Position just after the `count`-th digit of `value` (0: the start). */
function afterDigits(value: string, count: number): number {
  if (count === 0) return 0;
  let seen = 0;
  for (let i = 0; i < value.length; i++) {
    if (/\d/.test(value[i]!) && ++seen === count) return i + 1;
  }
  return value.length;
}

/**
 * Reformats a field's value and keeps the caret after the same digit it followed, so
 * editing in the middle of a number does not throw the caret to the end.
 */
export function reformat(format: Formatter, raw: string, caret: number, deleting: boolean): Formatted {
  const value = format(raw, deleting);
  if (caret >= raw.length) return { value, caret: value.length };
  return { value, caret: afterDigits(value, digitsOf(raw.slice(0, caret)).length) };
}

/** The formatter of a field, by its validator; fields without one are left as typed. */
export function formatterFor(validate: GatewayField['validate']): Formatter | null {
  switch (validate) {
    case 'card-number':
      return groupCardNumber;
    case 'card-expiry':
      return formatExpiry;
    case 'card-cvc':
      return (raw) => digitsOf(raw).slice(0, 4);
    case 'required':
    case 'optional-email':
      return null;
  }
}
