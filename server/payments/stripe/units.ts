import { exponentOf } from '../../domain/currencies';
import { divRoundHalfAway, unitsToFixed } from '../../domain/money';
import type { NotActed } from '../gateway';

// Our amounts are in ISO 4217's minor units; Stripe's API counts two currencies otherwise
// (docs.stripe.com/currencies): the Malagasy ariary is zero-decimal at Stripe (ISO: 2
// decimals) and the Icelandic króna two-decimal in whole krónur (ISO: 0 decimals, Stripe
// refuses a fraction). In the three-decimal currencies Stripe takes only amounts whose last
// digit is 0. Every amount sent to Stripe goes through `stripeUnits` and every amount read
// from it through `ourUnits`, so that 10.00 MGA is charged as 10 ariary, not 1,000.

const STRIPE_EXPONENT: Readonly<Record<string, number>> = { MGA: 0, ISK: 2 };
const TENS_ONLY = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** How many of Stripe's units one of ours is (a power of ten), or how many of ours one of Stripe's (negative). */
function shiftOf(currency: string): number {
  const code = currency.toUpperCase();
  return (STRIPE_EXPONENT[code] ?? exponentOf(code)) - exponentOf(code);
}

/** `amount` (our minor units) in Stripe's units of `currency`; null when Stripe cannot charge that amount. */
export function stripeUnits(amount: number, currency: string): number | null {
  const shift = shiftOf(currency);
  const divisor = 10 ** Math.max(0, -shift);
  if (amount % divisor !== 0) return null;
  const units = shift >= 0 ? amount * 10 ** shift : amount / divisor;
  return TENS_ONLY.has(currency.toUpperCase()) && units % 10 !== 0 ? null : units;
}

/** Like `stripeUnits`, for an amount already checked with `unchargeable`. */
export function toStripe(amount: number, currency: string): number {
  const units = stripeUnits(amount, currency);
  if (units === null) throw new Error(`${amount} ${currency} reached Stripe's parameters unchecked`);
  return units;
}

/**
 * An amount Stripe gives in `currency`, in our minor units. A fraction of a króna (a fee
 * Stripe computed) has no ISO minor unit to be kept in: it is rounded half away from zero.
 */
export function ourUnits(amount: number, currency: string): number {
  const shift = shiftOf(currency);
  return shift <= 0 ? amount * 10 ** -shift : Number(divRoundHalfAway(BigInt(amount), 10n ** BigInt(shift)));
}

/** Why Stripe cannot be asked to move `amount` of `currency`, before anything is sent; null when it can. */
export function unchargeable(amount: number, currency: string): NotActed | null {
  if (stripeUnits(amount, currency) !== null) return null;
  const code = currency.toUpperCase();
  const step = TENS_ONLY.has(code) ? 10 : 10 ** -shiftOf(code);
  const shown = (units: number) => `${unitsToFixed(units, exponentOf(code))} ${code}`;
  return { outcome: 'not_acted', reason: `Stripe takes ${code} amounts in steps of ${shown(step)}: ${shown(amount)} cannot be sent` };
}
