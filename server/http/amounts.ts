import { exponentOf } from '../domain/currencies';
import { DecimalError, toUnits } from '../domain/money';
import { fieldError } from './problem';

// A request's decimal amount as integer units, or a 400 naming its field: for the route
// modules and for transactions/ (which builds a transaction from a request body), so
// neither reaches into a route module for it.

/** Major units → minor units of `currency`, or a 400 naming the field. */
export function toMinor(value: number, currency: string, path: string): number {
  return Number(toScaled(value, exponentOf(currency), path));
}

/** A decimal at `exponent` digits as integer units, or a 400 naming the field. */
export function toScaled(value: number, exponent: number, path: string): bigint {
  try {
    return toUnits(value, exponent);
  } catch (err) {
    if (err instanceof DecimalError) throw fieldError(path, err.message);
    throw err;
  }
}
