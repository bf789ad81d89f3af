import { describe, expect, it } from 'vitest';
import { customerKey, lifetimeValue, lifetimeValues } from '../../server/domain/customers';

// A customer's key and lifetime value (server/domain/customers.ts).

describe('customerKey', () => {
  it('is one form for the same address typed differently', () => {
    expect(customerKey('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(customerKey('ÁNGEL@example.es')).toBe(customerKey('ángel@example.es'));
    expect(customerKey('ada@example.com')).not.toBe(customerKey('ada2@example.com'));
  });
});

describe('lifetimeValue', () => {
  it('is paid less refunded per currency, never adding currencies together', () => {
    expect(
      lifetimeValue([
        { currency: 'EUR', captured: 1000, refunded: 250 },
        { currency: 'USD', captured: 500, refunded: 0 },
        { currency: 'EUR', captured: 99, refunded: 0 },
        { currency: 'JPY', captured: 1200, refunded: 1200 },
      ]),
    ).toEqual([
      { currency: 'EUR', units: 849 },
      { currency: 'JPY', units: 0 },
      { currency: 'USD', units: 500 },
    ]);
    expect(lifetimeValue([])).toEqual([]);
  });

  it('stays exact where floating-point decimals would not (0.1 + 0.2)', () => {
    expect(lifetimeValue([{ currency: 'EUR', captured: 10, refunded: 0 }, { currency: 'EUR', captured: 20, refunded: 0 }])).toEqual([{ currency: 'EUR', units: 30 }]);
    const big = Number.MAX_SAFE_INTEGER - 1;
    expect(lifetimeValue([{ currency: 'KWD', captured: big, refunded: 1 }])).toEqual([{ currency: 'KWD', units: big - 1 }]);
  });

  it('refuses what is not minor units rather than round it', () => {
    expect(() => lifetimeValue([{ currency: 'EUR', captured: 10.5, refunded: 0 }])).toThrow(RangeError);
    expect(() => lifetimeValue([{ currency: 'EUR', captured: Number.MAX_SAFE_INTEGER, refunded: 0 }, { currency: 'EUR', captured: 2, refunded: 0 }])).toThrow(RangeError);
  });
});

describe('lifetimeValues', () => {
  it('groups by customer', () => {
    const values = lifetimeValues([
      { key: 'a@x.example', currency: 'EUR', captured: 500, refunded: 100 },
      { key: 'b@x.example', currency: 'EUR', captured: 700, refunded: 0 },
      { key: 'a@x.example', currency: 'USD', captured: 300, refunded: 0 },
    ]);
    expect(values.get('a@x.example')).toEqual([
      { currency: 'EUR', units: 400 },
      { currency: 'USD', units: 300 },
    ]);
    expect(values.get('b@x.example')).toEqual([{ currency: 'EUR', units: 700 }]);
    expect(values.get('c@x.example')).toBeUndefined();
  });
});
