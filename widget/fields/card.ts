// Field validators shared by the screen (inline errors while typing) and the server (the
// authority, also for posts made with JavaScript off). Pure: no DOM, no clock of its own.
// Each validator returns a locale key from locales/*.json, or null when the value is fine.
import { isEmail } from './email';
import type { GatewayField } from './types';

export type ValidatorName = GatewayField['validate'];

export type FieldErrorKey =
  | 'error.required'
  | 'error.card.number.invalid'
  | 'error.card.number.length'
  | 'error.card.expiry.format'
  | 'error.card.expiry.month'
  | 'error.card.expiry.past'
  | 'error.card.cvc.length'
  | 'error.email';

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'diners' | 'jcb' | 'unionpay';

export interface ValidationContext {
  /** The moment to judge expiry dates against (ms since epoch, or a Date). */
  now: number | Date;
  /** The card number typed in the same form, so the CVC knows whether it needs 4 digits. */
  cardNumber?: string;
}

interface BrandRule {
  brand: CardBrand;
  /** Tested in order; the first match wins, so narrower prefixes come first. */
  prefix: RegExp;
  lengths: readonly number[];
  cvcLength: 3 | 4;
}

const SIXTEEN_TO_NINETEEN = [16, 17, 18, 19] as const;

// IIN ranges as published by the networks (simplified to what a checkout needs).
const BRANDS: readonly BrandRule[] = [
  { brand: 'amex', prefix: /^3[47]/, lengths: [15], cvcLength: 4 },
  { brand: 'diners', prefix: /^3(0[0-5]|[689])/, lengths: [14, 15, 16, 17, 18, 19], cvcLength: 3 },
  { brand: 'jcb', prefix: /^35(2[89]|[3-8])/, lengths: SIXTEEN_TO_NINETEEN, cvcLength: 3 },
  { brand: 'visa', prefix: /^4/, lengths: [13, 16, 19], cvcLength: 3 },
  { brand: 'mastercard', prefix: /^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/, lengths: [16], cvcLength: 3 },
  { brand: 'discover', prefix: /^(6011|64[4-9]|65|622(12[6-9]|1[3-9]\d|[2-8]\d\d|9[01]\d|92[0-5]))/, lengths: SIXTEEN_TO_NINETEEN, cvcLength: 3 },
  { brand: 'unionpay', prefix: /^62/, lengths: SIXTEEN_TO_NINETEEN, cvcLength: 3 },
];

/** How brands are written on the screen and on receipts; names, so not translated. */
const BRAND_NAMES: Record<CardBrand, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

/** Every brand the service tells apart, in the order the dashboard offers them. */
export const CARD_BRANDS = Object.keys(BRAND_NAMES) as CardBrand[];

/** Customers type numbers as printed on the card: groups split by spaces (or dashes). */
export function normalizeCardNumber(value: string): string {
  return value.replace(/[\s-]/g, '');
}

function ruleFor(number: string): BrandRule | undefined {
  const digits = normalizeCardNumber(number);
  return /^\d+$/.test(digits) ? BRANDS.find((rule) => rule.prefix.test(digits)) : undefined;
}

export function cardBrand(number: string): CardBrand | null {
  return ruleFor(number)?.brand ?? null;
}

export function brandName(brand: string | null): string | null {
  if (!brand) return null;
  return (BRAND_NAMES as Record<string, string | undefined>)[brand.toLowerCase()] ?? brand;
}

/** The Luhn (mod 10) checksum over the digits; spaces and dashes are ignored. */
export function luhn(number: string): boolean {
  const digits = normalizeCardNumber(number);
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function validateCardNumber(value: string): FieldErrorKey | null {
  const digits = normalizeCardNumber(value);
  if (!/^\d+$/.test(digits)) return 'error.card.number.invalid';
  const rule = ruleFor(digits);
  // Unknown networks still get the ISO/IEC 7812 bounds rather than a hard refusal.
  const lengthOk = rule ? rule.lengths.includes(digits.length) : digits.length >= 12 && digits.length <= 19;
  if (!lengthOk) return 'error.card.number.length';
  return luhn(digits) ? null : 'error.card.number.invalid';
}

export interface CardExpiry {
  month: number;
  year: number;
}

/**
 * "MM/YY" (spaces around the slash tolerated, "MM/YYYY" too), or digits alone ("1234",
 * "122034"), as typed on a phone's number pad, which has no "/".
 */
export function parseExpiry(value: string): CardExpiry | null {
  const match = /^\s*(?:(\d{1,2})\s*\/\s*|(\d{2}))(\d{2}|\d{4})\s*$/.exec(value);
  if (!match) return null;
  const month = Number(match[1] ?? match[2]);
  const year = match[3]!.length === 2 ? 2000 + Number(match[3]) : Number(match[3]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

// Cards are valid through the last day of their expiry month; months are compared in UTC
// so the server and the browser agree whatever their zones.
function validateExpiry(value: string, now: number | Date): FieldErrorKey | null {
  const expiry = parseExpiry(value);
  if (!expiry) return impossibleExpiry(value) ?? 'error.card.expiry.format';
  const today = new Date(now);
  const current = today.getUTCFullYear() * 12 + today.getUTCMonth();
  const expires = expiry.year * 12 + (expiry.month - 1);
  if (expires < current) return 'error.card.expiry.past';
  // No card is issued for 20 years; such a date is a typo.
  if (expires > current + 20 * 12) return 'error.card.expiry.format';
  return null;
}

/** 4 digits for American Express, 3 for every other brand. */
export function cvcLength(cardNumber: string | undefined): 3 | 4 {
  return (cardNumber && ruleFor(cardNumber)?.cvcLength) || 3;
}

function validateCvc(value: string, cardNumber: string | undefined): FieldErrorKey | null {
  const expected = cvcLength(cardNumber);
  return new RegExp(`^\\d{${expected}}$`).test(value.trim()) ? null : 'error.card.cvc.length';
}

/**
 * A month no card has, as soon as its two digits are typed ("13", "00"): no further digit
 * can make it valid, so the customer hears it at once instead of after leaving the field.
 */
export function impossibleExpiry(value: string): FieldErrorKey | null {
  // Two digits that stand as the month: alone, before the slash, or before a 2- or 4-digit year.
  const month = /^\s*(\d{2})(?:\s*$|\s*\/|\d{2}\s*$|\d{4}\s*$)/.exec(value)?.[1];
  return month !== undefined && (Number(month) < 1 || Number(month) > 12) ? 'error.card.expiry.month' : null;
}

/** The locale key of what is wrong with `value`, or null. Empty values are `error.required`, except where optional. */
export function validateField(
  validator: ValidatorName,
  value: string,
  ctx: ValidationContext,
): FieldErrorKey | null {
  if (value.trim() === '') return validator === 'optional-email' ? null : 'error.required';
  switch (validator) {
    case 'card-number':
      return validateCardNumber(value);
    case 'card-expiry':
      return validateExpiry(value, ctx.now);
    case 'card-cvc':
      return validateCvc(value, ctx.cardNumber);
    case 'required':
      return null;
    case 'optional-email':
      return isEmail(value.trim()) ? null : 'error.email';
  }
}

/**
 * Validates every field a gateway declares; the result maps field names to locale keys and
 * is empty when the form may be sent. The card number for the CVC rule is found by validator.
 */
export function validateFields(
  fields: readonly GatewayField[],
  values: Readonly<Record<string, string | undefined>>,
  now: number | Date,
): Record<string, FieldErrorKey> {
  const numberField = fields.find((field) => field.validate === 'card-number');
  const ctx: ValidationContext = { now, cardNumber: numberField ? values[numberField.name] : undefined };
  const errors: Record<string, FieldErrorKey> = {};
  for (const field of fields) {
    const error = validateField(field.validate, values[field.name] ?? '', ctx);
    if (error) errors[field.name] = error;
  }
  return errors;
}

/** Variables the error messages interpolate ({{digits}} in the CVC message). */
export function errorVars(key: string, ctx: Pick<ValidationContext, 'cardNumber'>): Record<string, number> {
  return key === 'error.card.cvc.length' ? { digits: cvcLength(ctx.cardNumber) } : {};
}
