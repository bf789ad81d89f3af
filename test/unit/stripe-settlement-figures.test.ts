import { describe, expect, it } from 'vitest';
import { processorSettlement } from '../../server/domain/processor-settlement';
import { REDSYS_CARD_ID, STRIPE_CARD_ID } from '../../server/domain/processor-gateway-ids';
import { balanceTransactionSchema, figuresOf } from '../../server/payments/stripe/settlement';
import fixtures from '../stripe/fixtures.json' with { type: 'json' };

// Stripe's balance transaction read as our figures (payments/stripe/settlement.ts), and how a
// sale's processor settlement stands (domain/processor-settlement.ts).

const SANDBOX_CARD = '0190f5a0-0000-7000-8000-000000000001';

describe('Stripe balance transaction → our figures', () => {
  it("reads Stripe's published example: the currency in capitals, the units as given (USD's are ISO's), available_on from Unix seconds", () => {
    const bt = balanceTransactionSchema.parse(fixtures.balance_transaction);
    expect(figuresOf(bt)).toEqual({ record: 'txn_1PgaxNB7WZ01zgkWEV3TLf40', currency: 'USD', amount: 100, fee: 0, net: 100, availableOn: new Date(1234567890 * 1000) });
  });

  it('keeps a zero-decimal currency in the whole units Stripe gives (JPY), and a three-decimal one in its thousandths (KWD)', () => {
    const yen = balanceTransactionSchema.parse({ ...fixtures.balance_transaction, currency: 'jpy', amount: 1500, fee: 59, net: 1441 });
    expect(figuresOf(yen)).toMatchObject({ currency: 'JPY', amount: 1500, fee: 59, net: 1441 });
    const dinar = balanceTransactionSchema.parse({ ...fixtures.balance_transaction, currency: 'kwd', amount: 12345, fee: 210, net: 12135 });
    expect(figuresOf(dinar)).toMatchObject({ currency: 'KWD', amount: 12345, fee: 210 });
  });

  it("turns Stripe's units into ISO 4217's where they differ: MGA whole ariary into hundredths, ISK hundredths into krónur (a fee's fraction rounded half away from zero, the net what is left)", () => {
    const ariary = balanceTransactionSchema.parse({ ...fixtures.balance_transaction, currency: 'mga', amount: 5000, fee: 175, net: 4825 });
    expect(figuresOf(ariary)).toMatchObject({ currency: 'MGA', amount: 500_000, fee: 17_500, net: 482_500 });
    const kronur = balanceTransactionSchema.parse({ ...fixtures.balance_transaction, currency: 'isk', amount: 500_000, fee: 14_550, net: 485_450 });
    expect(figuresOf(kronur)).toMatchObject({ currency: 'ISK', amount: 5000, fee: 146, net: 4854 });
  });

  it('has no available date when Stripe gives none', () => {
    expect(figuresOf(balanceTransactionSchema.parse({ ...fixtures.balance_transaction, available_on: null })).availableOn).toBeNull();
  });

  it('does not believe what is not a balance transaction as Stripe documents it', () => {
    expect(balanceTransactionSchema.safeParse({ ...fixtures.balance_transaction, currency: 'EUR' }).success).toBe(false);
    expect(balanceTransactionSchema.safeParse({ ...fixtures.balance_transaction, fee: 1.5 }).success).toBe(false);
    expect(balanceTransactionSchema.safeParse({ ...fixtures.balance_transaction, id: 'ch_1' }).success).toBe(false);
  });
});

describe('how a sale’s processor settlement stands', () => {
  const figures = { record: 'txn_1', currency: 'EUR', amount: 1700, fee: 51, net: 1649, availableOn: null };

  it('none for a sale the platform settles, whatever it holds', () => {
    expect(processorSettlement({ gateway_id: SANDBOX_CARD, captured: 1700 }, null)).toBeNull();
  });

  it("Stripe's: known with its figures, pending while captured without them, none while nothing is captured", () => {
    expect(processorSettlement({ gateway_id: STRIPE_CARD_ID, captured: 1700 }, figures)).toEqual({ status: 'known', figures });
    expect(processorSettlement({ gateway_id: STRIPE_CARD_ID, captured: 1700 }, null)).toEqual({ status: 'pending', figures: null });
    expect(processorSettlement({ gateway_id: STRIPE_CARD_ID, captured: 0 }, null)).toEqual({ status: 'none', figures: null });
  });

  it("Redsys's: not reported (its processor gives no figures per payment)", () => {
    expect(processorSettlement({ gateway_id: REDSYS_CARD_ID, captured: 1700 }, null)).toEqual({ status: 'not_reported', figures: null });
  });
});
