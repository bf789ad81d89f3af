import { z } from 'zod';
import { CURRENCIES, findCurrency } from '../domain/currencies';
import { UUID_PATTERN } from '../domain/ids';
import { DecimalError, toUnits } from '../domain/money';
import { fieldError } from '../http/problem';

// Field types shared by every resource schema.

/** Amounts in major units, as the spec speaks them; the exponent is checked on conversion. */
export const amount = z.number().min(0).max(1e12);
export const positiveAmount = z.number().gt(0).max(1e12);

export const text = (max: number) => z.string().trim().max(max);
export const name = z.string().trim().min(1).max(255);

export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code in capitals')
  .refine((code) => CURRENCIES.has(code), 'is not a known currency');

export const httpUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname, error: 'must be an absolute http(s) URL' })
  .max(2048);

export const ref = (what: string) =>
  z.string().regex(UUID_PATTERN, `must be the id (a UUID) of an existing ${what}`);

export const percentage = z.number().min(0).max(100);

export const timestamps = {
  created: z.iso.datetime(),
  updated: z.iso.datetime(),
};

/** Major units → minor units of `currency`, or a 400 naming the field. */
export function toMinor(value: number, currency: string, path: string): number {
  return Number(toScaled(value, findCurrency(currency)?.exponent ?? 2, path));
}

export function toScaled(value: number, exponent: number, path: string): bigint {
  try {
    return toUnits(value, exponent);
  } catch (err) {
    if (err instanceof DecimalError) throw fieldError(path, err.message);
    throw err;
  }
}

export function exponentOf(currency: string): number {
  return findCurrency(currency)?.exponent ?? 2;
}
