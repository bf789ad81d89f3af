import { describe, expect, it } from 'vitest';
import { validateField } from '../../../widget/fields/card';
import { formatExpiry, formatterFor, groupCardNumber, reformat } from '../../../widget/screen/card-format';

const NOW = Date.UTC(2026, 2, 15);

describe('groupCardNumber', () => {
  it.each([
    ['4242424242424242', '4242 4242 4242 4242'],
    ['42424', '4242 4'],
    ['4242-4242 4242', '4242 4242 4242'],
    ['5555555555554444', '5555 5555 5555 4444'],
    ['6011111111111117', '6011 1111 1111 1117'],
  ])('%s → %s (4-4-4-4)', (typed, shown) => expect(groupCardNumber(typed)).toBe(shown));

  it('groups American Express 4-6-5 and stops at 15 digits', () => {
    expect(groupCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(groupCardNumber('3782822463100059')).toBe('3782 822463 10005');
  });

  it('groups Diners Club 4-6-4', () => expect(groupCardNumber('30569309025904')).toBe('3056 930902 5904'));

  it('keeps at most 19 digits, the longest card number', () => {
    expect(groupCardNumber('4'.repeat(25)).replace(/ /g, '')).toHaveLength(19);
  });

  it('drops what is not a digit', () => expect(groupCardNumber('42a4 2')).toBe('4242'));
});

describe('formatExpiry', () => {
  it.each([
    ['1', '1'],
    ['12', '12 / '],
    ['123', '12 / 3'],
    ['1234', '12 / 34'],
    ['12345', '12 / 34'],
    ['4', '04 / '],
    ['0', '0'],
    ['12/2034', '12 / 34'],
    ['1/34', '01 / 34'],
    ['12 / 34', '12 / 34'],
    ['122034', '12 / 34'],
  ])('typed or pasted %s → %s', (typed, shown) => expect(formatExpiry(typed)).toBe(shown));

  it('lets Backspace remove the separator', () => {
    expect(formatExpiry('12 /', true)).toBe('12');
    expect(formatExpiry('12 / 3', true)).toBe('12 / 3');
    expect(formatExpiry('4', true)).toBe('4');
  });

  it('produces only values the validator accepts', () => {
    for (const typed of ['1234', '12/2034', '0429', '4/29']) {
      expect(validateField('card-expiry', formatExpiry(typed), { now: NOW }), typed).toBeNull();
    }
  });
});

describe('reformat keeps the caret after the same digit', () => {
  const number = formatterFor('card-number')!;

  it('at the end, the caret stays at the end', () => {
    expect(reformat(number, '42424', 5, false)).toEqual({ value: '4242 4', caret: 6 });
  });

  it('typing in the middle keeps the caret after the new digit', () => {
    // "4242 |4242" + "1" → "4242 1|4242" → regrouped "4242 1424 2"
    expect(reformat(number, '4242 14242', 6, false)).toEqual({ value: '4242 1424 2', caret: 6 });
    // Before a space: "4242| 4242" + "1" → "42421 4242" → "4242 1424 2", caret after the 1.
    expect(reformat(number, '42421 4242', 5, false)).toEqual({ value: '4242 1424 2', caret: 6 });
  });

  it('deleting a space leaves the caret before it, so the next Backspace removes a digit', () => {
    expect(reformat(number, '42424242', 4, true)).toEqual({ value: '4242 4242', caret: 4 });
  });

  it('deleting in the middle of the expiry keeps the caret there', () => {
    expect(reformat(formatterFor('card-expiry')!, '1 / 34', 1, true)).toEqual({ value: '13 / 4', caret: 1 });
  });

  it('the CVC keeps digits only, at most four; the name is not formatted', () => {
    expect(formatterFor('card-cvc')!('12a345', false)).toBe('1234');
    expect(formatterFor('required')).toBeNull();
  });
});
