// Exact decimal ⇄ integer minor-unit conversion. The API speaks decimal numbers in major
// units; inside, every amount is an integer of minor units. No floating-point arithmetic:
// a JSON number is read through its shortest round-trip decimal text.

/** Largest amount (in minor units, or scaled units) accepted anywhere: far below 2^53. */
export const MAX_UNITS = 10n ** 15n;

export class DecimalError extends Error {}

/** Splits a finite JS number into an exact decimal (digits, scale): 12.34 → (1234n, 2). */
function toDecimal(value: number): { digits: bigint; scale: number } {
  if (!Number.isFinite(value)) throw new DecimalError('must be a finite number');
  const text = String(value).toLowerCase();
  const [mantissa = '', exp = '0'] = text.split('e');
  const negative = mantissa.startsWith('-');
  const [int = '0', frac = ''] = mantissa.replace('-', '').split('.');
  let digits = BigInt(int + frac);
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  // Trailing zeros after the point do not count as decimals: 1.50 has one.
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale -= 1;
  }
  return { digits: negative ? -digits : digits, scale };
}

/** A decimal number → integer units at `exponent` places, refusing extra decimals. */
export function toUnits(value: number, exponent: number): bigint {
  const { digits, scale } = toDecimal(value);
  if (scale > exponent) {
    throw new DecimalError(
      exponent === 0 ? 'must be a whole number' : `must have at most ${exponent} decimal places`,
    );
  }
  const units = digits * 10n ** BigInt(exponent - scale);
  if (units > MAX_UNITS || units < -MAX_UNITS) throw new DecimalError('is too large');
  return units;
}

/** Integer units at `exponent` places → decimal text: (123456, 2) → "1234.56". */
export function unitsToDecimalString(units: bigint | number, exponent: number): string {
  const n = BigInt(units);
  const sign = n < 0n ? '-' : '';
  const abs = (n < 0n ? -n : n).toString().padStart(exponent + 1, '0');
  if (exponent === 0) return sign + abs;
  const int = abs.slice(0, -exponent);
  const frac = abs.slice(-exponent).replace(/0+$/, '');
  return sign + int + (frac ? `.${frac}` : '');
}

/** Integer units at `exponent` places → decimal text with every place: (1050, 2) → "10.50". */
export function unitsToFixed(units: bigint | number, exponent: number): string {
  const [int, frac = ''] = unitsToDecimalString(units, exponent).split('.');
  return exponent === 0 ? int! : `${int}.${frac.padEnd(exponent, '0')}`;
}

/** Integer units → the JSON number the API returns (a conversion, not arithmetic). */
export function unitsToNumber(units: bigint | number, exponent: number): number {
  return Number(unitsToDecimalString(units, exponent));
}

/** numerator / denominator rounded half away from zero. */
export function divRoundHalfAway(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  const q = (abs * 2n + denominator) / (2n * denominator);
  return negative ? -q : q;
}
