import { describe, expect, it } from 'vitest';
import {
  brandName,
  cardBrand,
  cvcLength,
  luhn,
  parseExpiry,
  validateField,
  validateFields,
} from '../../../widget/fields/card';
import { CARD_GATEWAY } from './fixtures';

// 1 March 2026, noon UTC.
const NOW = Date.UTC(2026, 2, 1, 12);

describe('luhn', () => {
  it.each(['4242424242424242', '4242 4242 4242 4242', '4000-0000-0000-0002', '378282246310005', '0'])('accepts %s', (number) => {
    expect(luhn(number)).toBe(true);
  });
  it.each(['4242424242424241', '1234567812345678', '', 'abcd', '4242 4242 4242 424x'])('rejects %s', (number) => {
    expect(luhn(number)).toBe(false);
  });
});

describe('cardBrand', () => {
  it.each([
    ['4242 4242 4242 4242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['378282246310005', 'amex'],
    ['341111111111111', 'amex'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['30569309025904', 'diners'],
    ['3530111333300000', 'jcb'],
    ['6200000000000005', 'unionpay'],
  ] as const)('%s is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it.each(['2220990000000000', '2721000000000000', '1234', '', 'visa'])('%s has no brand', (number) => {
    expect(cardBrand(number)).toBeNull();
  });

  it('names brands for people, and passes unknown ones through', () => {
    expect(brandName('amex')).toBe('American Express');
    expect(brandName('VISA')).toBe('Visa');
    expect(brandName('elo')).toBe('elo');
    expect(brandName(null)).toBeNull();
  });
});

describe('validateField: card-number', () => {
  const check = (value: string) => validateField('card-number', value, { now: NOW });
  it.each(['4242 4242 4242 4242', '4000000000000002', '378282246310005', '4222222222222'])('accepts %s', (value) => {
    expect(check(value)).toBeNull();
  });
  it('requires a value', () => expect(check('   ')).toBe('error.required'));
  it('rejects letters', () => expect(check('4242 4242 abcd 4242')).toBe('error.card.number.invalid'));
  it('rejects a failed checksum', () => expect(check('4242 4242 4242 4241')).toBe('error.card.number.invalid'));
  it('rejects a length the brand does not issue', () => {
    expect(check('4242 4242 4242 42')).toBe('error.card.number.length');
    // A valid Luhn number of 16 digits is still wrong for American Express (15).
    expect(check('3782822463100052')).toBe('error.card.number.length');
  });
  it('bounds unknown brands by ISO/IEC 7812 lengths', () => {
    expect(check('12345678903')).toBe('error.card.number.length');
    expect(check('123456789015')).toBeNull();
  });
});

describe('validateField: card-expiry', () => {
  const check = (value: string, now: number | Date = NOW) => validateField('card-expiry', value, { now });
  it.each(['03/26', '3/26', '12/30', '03 / 26', '03/2026', '0326', '032026', ' 1230 '])('accepts %s in March 2026', (value) => {
    expect(check(value)).toBeNull();
  });
  it('treats the card as valid through the end of its month', () => {
    expect(check('02/26', Date.UTC(2026, 1, 28, 23, 59))).toBeNull();
    expect(check('02/26')).toBe('error.card.expiry.past');
  });
  it.each(['326', '03261', '03-26', 'ab/cd', '03/2'])('rejects the format %s', (value) => {
    expect(check(value)).toBe('error.card.expiry.format');
  });
  it.each(['13/26', '00/26', '1326', '13 / 2'])('names the impossible month of %s', (value) => {
    expect(check(value)).toBe('error.card.expiry.month');
  });
  it('rejects dates too far ahead to be real', () => expect(check('03/99')).toBe('error.card.expiry.format'));
  it('accepts a Date as now', () => expect(check('01/26', new Date(NOW))).toBe('error.card.expiry.past'));
  it('parses what it accepts', () => expect(parseExpiry(' 7 / 2031 ')).toEqual({ month: 7, year: 2031 }));
});

describe('validateField: card-cvc', () => {
  it('wants 3 digits for most brands and 4 for American Express', () => {
    expect(validateField('card-cvc', '123', { now: NOW, cardNumber: '4242424242424242' })).toBeNull();
    expect(validateField('card-cvc', '1234', { now: NOW, cardNumber: '4242424242424242' })).toBe('error.card.cvc.length');
    expect(validateField('card-cvc', '1234', { now: NOW, cardNumber: '378282246310005' })).toBeNull();
    expect(validateField('card-cvc', '123', { now: NOW, cardNumber: '378282246310005' })).toBe('error.card.cvc.length');
    expect(validateField('card-cvc', '12a', { now: NOW })).toBe('error.card.cvc.length');
    expect(cvcLength(undefined)).toBe(3);
  });
});

describe('validateField: required', () => {
  it('accepts any non-blank text', () => {
    expect(validateField('required', 'Ada Lovelace', { now: NOW })).toBeNull();
    expect(validateField('required', ' \t', { now: NOW })).toBe('error.required');
  });
});

describe('validateFields', () => {
  it('returns nothing for a complete card', () => {
    const values = { card_number: '3782 822463 10005', card_expiry: '04/29', card_cvc: '1234', card_name: 'Ada' };
    expect(validateFields(CARD_GATEWAY.fields, values, NOW)).toEqual({});
  });
  it('maps every bad field to its key, using the number for the CVC rule', () => {
    const values = { card_number: '3782 822463 10005', card_expiry: '01/20', card_cvc: '123' };
    expect(validateFields(CARD_GATEWAY.fields, values, NOW)).toEqual({
      card_expiry: 'error.card.expiry.past',
      card_cvc: 'error.card.cvc.length',
      card_name: 'error.required',
    });
  });
});
