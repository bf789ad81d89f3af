import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecimalError, divRoundHalfAway, MAX_UNITS, toUnits, unitsToDecimalString, unitsToNumber } from '../../server/domain/money';

// Decimal ⇄ minor units. The reference values here are built from decimal TEXT by string
// manipulation, never through the functions under test or floating-point arithmetic.

/** "123.4" at exponent 2 → 12340n, by hand. */
function parseDecimal(text: string, exponent: number): bigint {
  const negative = text.startsWith('-');
  const [int, frac = ''] = text.replace('-', '').split('.');
  const units = BigInt(int! + frac.padEnd(exponent, '0'));
  return negative ? -units : units;
}

/** Decimal text of a bigint with `decimals` places, by hand: (5n, 2) → "0.05". */
function decimalText(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return (negative ? '-' : '') + text;
}

const EXPONENTS = [0, 2, 3] as const;

describe('toUnits', () => {
  it.each([
    [12.34, 2, 1234n],
    [1.5, 2, 150n],
    [1.1, 2, 110n],
    [0.07, 2, 7n],
    [1.15, 2, 115n], // 1.15 × 100 = 114.99999999999999 in floating point
    [4.35, 2, 435n], // 4.35 × 100 = 434.99999999999994
    [0.3, 2, 30n],
    [1.005, 3, 1005n], // 1.005 × 1000 = 1004.9999999999999
    [100, 0, 100n],
    [0, 2, 0n],
    [-0, 2, 0n],
    [-1.25, 2, -125n],
    [999999999999.99, 2, 99999999999999n],
    [1e12, 3, 10n ** 15n],
  ])('%s at exponent %s is %s', (value, exponent, units) => {
    expect(toUnits(value, exponent)).toBe(units);
  });

  it.each([
    [1.001, 2, 'must have at most 2 decimal places'],
    [1.5, 0, 'must be a whole number'],
    [0.1 + 0.2, 2, 'must have at most 2 decimal places'],
    [1.0001, 3, 'must have at most 3 decimal places'],
    [-0.001, 2, 'must have at most 2 decimal places'],
    [5e-324, 2, 'must have at most 2 decimal places'],
  ])('%s at exponent %s is refused: %s', (value, exponent, message) => {
    expect(() => toUnits(value, exponent)).toThrow(DecimalError);
    expect(() => toUnits(value, exponent)).toThrow(message);
  });

  it('reads exponent notation exactly', () => {
    expect(String(1e-7)).toBe('1e-7'); // what the parser really sees
    expect(toUnits(1e-7, 7)).toBe(1n);
    expect(toUnits(1.5e-7, 8)).toBe(15n);
    expect(toUnits(-2.5e-7, 8)).toBe(-25n);
    expect(() => toUnits(1e-7, 2)).toThrow('at most 2 decimal places');
    expect(() => toUnits(1e-7, 6)).toThrow(DecimalError);
    expect(String(1e21)).toBe('1e+21');
    expect(() => toUnits(1e21, 0)).toThrow('is too large');
    expect(() => toUnits(1.5e21, 2)).toThrow('is too large');
    expect(() => toUnits(-1e21, 0)).toThrow('is too large');
  });

  it('bounds amounts at MAX_UNITS, either sign', () => {
    expect(toUnits(1e15, 0)).toBe(MAX_UNITS);
    expect(toUnits(-1e15, 0)).toBe(-MAX_UNITS);
    expect(() => toUnits(1e15 + 1, 0)).toThrow('is too large');
    expect(() => toUnits(1e13, 3)).toThrow('is too large');
    expect(() => toUnits(1e300, 2)).toThrow('is too large');
    expect(MAX_UNITS < BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it.each([NaN, Infinity, -Infinity])('%s is refused', (value) => {
    expect(() => toUnits(value, 2)).toThrow('must be a finite number');
  });

  it('equals the units of the decimal text it was written as (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EXPONENTS),
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
        fc.integer({ min: 0, max: 3 }),
        (exponent, units, decimalsWanted) => {
          const decimals = Math.min(decimalsWanted, exponent);
          const text = decimalText(units, decimals);
          expect(toUnits(Number(text), exponent)).toBe(parseDecimal(text, exponent));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses exactly the values with more decimals than the exponent (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXPONENTS), fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }), (exponent, units) => {
        // `units` at one more decimal than allowed: valid only when that last digit is 0.
        const value = Number(decimalText(units, exponent + 1));
        if (units % 10n === 0n) expect(toUnits(value, exponent)).toBe(units / 10n);
        else expect(() => toUnits(value, exponent)).toThrow(DecimalError);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('unitsToDecimalString and unitsToNumber', () => {
  it.each([
    [123456n, 2, '1234.56'],
    [5n, 2, '0.05'],
    [-5n, 2, '-0.05'],
    [100n, 2, '1'],
    [150n, 2, '1.5'],
    [-150n, 2, '-1.5'],
    [0n, 3, '0'],
    [7n, 0, '7'],
    [-100n, 0, '-100'],
    [1005n, 3, '1.005'],
    [210000n, 4, '21'],
    [MAX_UNITS, 2, '10000000000000'],
  ])('%s at exponent %s is "%s"', (units, exponent, text) => {
    expect(unitsToDecimalString(units, exponent)).toBe(text);
    expect(unitsToDecimalString(Number(units), exponent)).toBe(text);
    expect(unitsToNumber(units, exponent)).toBe(Number(text));
  });

  it('round-trips through a JSON number for every amount up to MAX_UNITS (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 2, 3, 4), fc.bigInt({ min: -MAX_UNITS, max: MAX_UNITS }), (exponent, units) => {
        const text = unitsToDecimalString(units, exponent);
        // Canonical: no leading or trailing zeros, no "-0", at most `exponent` decimals.
        expect(text).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
        expect(text).not.toBe('-0');
        expect((text.split('.')[1] ?? '').length).toBeLessThanOrEqual(exponent);
        expect(parseDecimal(text, exponent)).toBe(units);
        const number = unitsToNumber(units, exponent);
        expect(JSON.parse(JSON.stringify(number))).toBe(number);
        expect(toUnits(number, exponent)).toBe(units);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('divRoundHalfAway', () => {
  it.each([
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [7n, 2n, 4n],
    [-7n, 2n, -4n],
    [1n, 2n, 1n],
    [-1n, 2n, -1n],
    [4n, 3n, 1n],
    [-4n, 3n, -1n],
    [5n, 3n, 2n],
    [-5n, 3n, -2n],
    [1n, 3n, 0n],
    [-1n, 3n, 0n],
    [0n, 7n, 0n],
    [4995n, 1000n, 5n],
    [-4995n, 1000n, -5n],
    [-4994n, 1000n, -5n],
    [-4500n, 1000n, -5n], // -4.5 → -5: half AWAY from zero, not towards +∞ nor to even
    [-5500n, 1000n, -6n],
    [2500n, 1000n, 3n],
  ])('%s / %s → %s', (n, d, q) => {
    expect(divRoundHalfAway(n, d)).toBe(q);
  });

  it('refuses a zero or negative denominator', () => {
    expect(() => divRoundHalfAway(1n, 0n)).toThrow(RangeError);
    expect(() => divRoundHalfAway(1n, -2n)).toThrow(RangeError);
  });

  it('is the nearest integer, ties away from zero, symmetric in sign (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
        const q = divRoundHalfAway(n, d);
        const twiceError = 2n * (n - q * d);
        const abs = (x: bigint) => (x < 0n ? -x : x);
        expect(abs(twiceError) <= d).toBe(true); // nearest
        if (abs(twiceError) === d) expect(abs(q * d) > abs(n)).toBe(true); // a tie goes away from zero
        expect(divRoundHalfAway(-n, d)).toBe(-q);
      }),
      { numRuns: 3000 },
    );
  });
});
