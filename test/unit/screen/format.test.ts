import { describe, expect, it } from 'vitest';
import { intlLocale } from '../../../widget/i18n/language';
import { formatCountdown, formatMoney, formatQuantity, minorToDecimal } from '../../../widget/i18n/format';

// Intl separates thousands in fr-FR with U+202F and puts U+00A0 before the currency sign.
const NNBSP = '\u202f';
const NBSP = '\u00a0';

describe('minorToDecimal', () => {
  it.each([
    [123456, 2, '1234.56'],
    [5, 2, '0.05'],
    [0, 2, '0.00'],
    [-750, 2, '-7.50'],
    [1234, 0, '1234'],
    [5, 3, '0.005'],
    // Above 2^53: a float would round the last digits.
    [12345678901234567890n, 2, '123456789012345678.90'],
  ] as const)('%s with exponent %s → %s', (minor, exponent, expected) => {
    expect(minorToDecimal(minor, exponent)).toBe(expected);
  });
});

describe('formatMoney', () => {
  it.each([
    ['es', 1234567, 'EUR', `12.345,67${NBSP}€`],
    ['es', 1234, 'EUR', `12,34${NBSP}€`],
    ['fr', 123456, 'EUR', `1${NNBSP}234,56${NBSP}€`],
    ['en', 123456, 'EUR', '€1,234.56'],
    ['au', 123456, 'AUD', '$1,234.56'],
    ['en', 123456, 'AUD', 'A$1,234.56'],
    ['au', 123456, 'EUR', `EUR${NBSP}1,234.56`],
  ] as const)('%s: %s %s → %s', (language, minor, currency, expected) => {
    expect(formatMoney(minor, currency, 2, intlLocale(language))).toBe(expected);
  });

  it('takes the digits from the exponent, not from Intl', () => {
    expect(formatMoney(1234, 'JPY', 0, 'en')).toBe('¥1,234');
    expect(formatMoney(1234, 'KWD', 3, 'en')).toBe(`KWD${NBSP}1.234`);
  });

  it('keeps cents exact for amounts a float cannot hold', () => {
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'EUR', 2, 'en')).toBe('€90,071,992,547,409.91');
  });
});

describe('formatQuantity', () => {
  it('localises decimal quantities without changing them', () => {
    expect(formatQuantity('1.5', 'es-ES')).toBe('1,5');
    expect(formatQuantity('2', 'fr-FR')).toBe('2');
    expect(formatQuantity('0.125', 'en')).toBe('0.125');
  });
});

describe('formatCountdown', () => {
  it.each([
    [600_000, '10:00'],
    // Rounded up: with 599.001 s left the clock must not already read 9:59.
    [599_001, '10:00'],
    [599_000, '9:59'],
    [59_000, '0:59'],
    [1, '0:01'],
    [0, '0:00'],
    [-5000, '0:00'],
  ])('%s ms → %s', (ms, expected) => {
    expect(formatCountdown(ms)).toBe(expected);
  });
});
