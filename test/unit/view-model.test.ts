import { describe, expect, it } from 'vitest';
import { buildView, keptValues } from '../../server/checkout/view-model';
import { createGateways } from '../../server/payments/registry';
import { stripeGateways } from '../../server/payments/stripe/gateway';
import { createSandboxCard, SANDBOX_CARD_ID, SANDBOX_REDIRECT_ID, sandboxGateways } from '../../server/payments/sandbox';
import type { SaleRow, TransactionLineRow } from '../../server/store/schema';
import type { Transaction } from '../../server/store/transactions';

const NOW = new Date('2026-03-01T10:00:00.000Z');

function tx(over: Partial<Transaction> = {}, lines: Partial<TransactionLineRow>[] = [{}]) {
  const row: Transaction = {
    id: '0190f5a0-1111-7000-8000-000000000001',
    environment_id: 'env',
    token: 'tok_abcdefghijklmnopqrstuvwxyz',
    order_id: 'A-1',
    currency: 'EUR',
    note: null,
    extra: null,
    return_url: 'https://shop.example/ok',
    cancel_url: null,
    notify_url: null,
    gateway_selected: true,
    language: 'es',
    expired_at: '2026-03-08T10:00:00.000Z',
    authorize: false,
    tax_ref: null,
    tax_name: 'IVA',
    tax_value: 357,
    shipping_ref: null,
    shipping_name: null,
    shipping_value: 0,
    coupon_ref: null,
    coupon_name: 'SPRING',
    coupon_value: 100,
    items_price: 1700,
    total_price: 1957,
    source: null,
    destination: null,
    status: 'N',
    created_at: '2026-03-01T09:00:00.000Z',
    updated_at: '2026-03-01T09:00:00.000Z',
    ...over,
  };
  const lineRows = lines.map((l, i) => ({
    id: `line-${i}`,
    transaction_id: row.id,
    position: i,
    product_ref: null,
    product_id: null,
    name: 'Coffee',
    description: null,
    unit_price: 850,
    quantity: '2',
    line_total: 1700,
    ...l,
  }));
  return { row, lines: lineRows };
}

const base = { merchantName: 'Shop', language: 'es' as const, csrf: 'c', now: NOW, embed: null, gateways: createGateways(sandboxGateways()), live: false };

describe('buildView: token → what the screen shows', () => {
  it('copies lines and totals in minor units with the currency exponent', () => {
    const v = buildView({ ...base, tx: tx() });
    expect(v.lines).toEqual([{ name: 'Coffee', description: null, quantity: '2', unitPrice: 850, lineTotal: 1700 }]);
    expect(v).toMatchObject({ currency: 'EUR', exponent: 2, itemsPrice: 1700, totalPrice: 1957, status: 'pending' });
    expect(v.tax).toEqual({ name: 'IVA', value: 357 });
    expect(v.shipping).toBeNull();
    expect(v.coupon).toEqual({ name: 'SPRING', value: 100 });
    expect(buildView({ ...base, tx: tx({ currency: 'JPY' }) }).exponent).toBe(0);
    expect(buildView({ ...base, tx: tx({ currency: 'KWD' }) }).exponent).toBe(3);
  });

  it('offers the gateways in their fixed order and preselects the first only when asked, or when it is the only one', () => {
    const on = buildView({ ...base, tx: tx({ gateway_selected: true }) });
    expect(on.gateways.map((g) => g.id)).toEqual([SANDBOX_CARD_ID, SANDBOX_REDIRECT_ID]);
    expect(on.selectedGateway).toBe(SANDBOX_CARD_ID);
    expect(buildView({ ...base, tx: tx({ gateway_selected: false }) }).selectedGateway).toBeNull();
    // The customer's own choice from a failed post wins over the preselection.
    expect(buildView({ ...base, tx: tx(), chosenGateway: SANDBOX_REDIRECT_ID }).selectedGateway).toBe(SANDBOX_REDIRECT_ID);
    expect(buildView({ ...base, tx: tx(), chosenGateway: 'not-a-gateway' }).selectedGateway).toBe(SANDBOX_CARD_ID);
    // One method leaves nothing to choose: its form shows at once.
    const cardOnly = createGateways(sandboxGateways().filter((g) => g.id === SANDBOX_CARD_ID));
    expect(buildView({ ...base, gateways: cardOnly, tx: tx({ gateway_selected: false }) }).selectedGateway).toBe(SANDBOX_CARD_ID);
  });

  it('offers a live environment no sandbox gateway, only the ones configured for real money, and a sandbox only sandbox ones', () => {
    const real = { ...sandboxGateways()[0]!, id: '0190f5a0-0000-7000-8000-0000000000aa', code: 'acquirer', sandbox: false };
    const gateways = createGateways([...sandboxGateways(), real]);
    expect(buildView({ ...base, gateways, tx: tx() }).gateways.map((g) => g.id)).toEqual([SANDBOX_CARD_ID, SANDBOX_REDIRECT_ID]);
    const live = buildView({ ...base, gateways, live: true, tx: tx({ gateway_selected: true }) });
    expect(live.gateways.map((g) => g.id)).toEqual([real.id]);
    expect(live.selectedGateway).toBe(real.id);
  });

  it("gives a processor's fields the amount in its own units (Stripe's MGA in whole ariary), and none when it cannot take the amount", () => {
    const [stripe] = stripeGateways({ secretKey: 'sk_test_view', publishableKey: 'pk_test_view' });
    const gateways = createGateways([stripe!]);
    const hosted = (over: Partial<Transaction>) => buildView({ ...base, gateways, tx: tx(over) }).gateways[0]!.hosted;
    expect(hosted({})).toMatchObject({ key: 'pk_test_view', amount: 1957, currency: 'EUR', hold: false });
    expect(hosted({ currency: 'MGA', total_price: 500_000 })).toMatchObject({ amount: 5000, currency: 'MGA' });
    expect(hosted({ currency: 'ISK', total_price: 5000 })).toMatchObject({ amount: 500_000 });
    expect(hosted({ currency: 'KWD', total_price: 1235 })).toBeUndefined();
  });

  it('maps every state, expiry included, and shows a receipt only when paid', () => {
    const sale = { id: 's1', amount: 1957, card_brand: 'visa', card_last4: '4242', created_at: NOW.toISOString() } as SaleRow;
    expect(buildView({ ...base, tx: tx({ status: 'D' }), sale })).toMatchObject({
      status: 'paid',
      receipt: { saleId: 's1', amount: 1957, brand: 'visa', last4: '4242' },
    });
    expect(buildView({ ...base, tx: tx({ status: 'C' }) }).status).toBe('cancelled');
    expect(buildView({ ...base, tx: tx({ status: 'E' }) }).status).toBe('expired');
    expect(buildView({ ...base, tx: tx({ expired_at: NOW.toISOString() }) }).status).toBe('expired');
    expect(buildView({ ...base, tx: tx(), declined: true }).status).toBe('declined');
    expect(buildView({ ...base, tx: tx({ status: 'N' }), sale }).receipt).toBeNull();
  });

  it('links back to the shop: cancel_url, else the site of return_url; return_url itself only once paid', () => {
    const v = buildView({ ...base, tx: tx() });
    expect(v.backUrl).toBe('https://shop.example/');
    expect(v.returnUrl).toBeNull();
    expect(JSON.stringify(v)).not.toContain('shop.example/ok');
    expect(buildView({ ...base, tx: tx({ cancel_url: 'https://shop.example/basket' }) }).backUrl).toBe('https://shop.example/basket');
    expect(buildView({ ...base, tx: tx({ status: 'D' }) }).returnUrl).toBe('https://shop.example/ok');
    expect(buildView({ ...base, tx: tx({ return_url: null }) }).backUrl).toBeNull();
  });

  it('embed mode: no link leaves the frame (the shop is the page around it)', () => {
    const v = buildView({ ...base, tx: tx({ status: 'D', cancel_url: 'https://shop.example/basket' }), embed: { parentOrigin: 'https://shop.example' } });
    expect(v.backUrl).toBeNull();
    expect(v.returnUrl).toBeNull();
  });

  it('keeps what a failed post may show again: never the card number or the CVC', () => {
    const typed = { card_number: '4242 4242 4242 4242', card_expiry: '12 / 34', card_cvc: '123', card_name: 'Ada', stray: 'x' };
    expect(keptValues(createSandboxCard().fields, typed)).toEqual({ card_expiry: '12 / 34', card_name: 'Ada' });
    expect(buildView({ ...base, tx: tx(), values: { card_name: 'Ada' } }).values).toEqual({ card_name: 'Ada' });
  });

  it('asks to confirm a cancel only while the payment is open', () => {
    expect(buildView({ ...base, tx: tx(), confirmCancel: true }).confirmCancel).toBe(true);
    expect(buildView({ ...base, tx: tx({ status: 'C' }), confirmCancel: true }).confirmCancel).toBe(false);
  });

  it('embed mode only: the URLs the frame reports as redirect, and whether this render is the customer\'s own result', () => {
    const embed = { parentOrigin: 'https://shop.example' };
    expect(buildView({ ...base, tx: tx(), embed }).embed).toEqual({
      parentOrigin: 'https://shop.example',
      returnUrl: 'https://shop.example/ok',
      cancelUrl: null,
      justFinished: false,
    });
    expect(buildView({ ...base, tx: tx({ status: 'D' }), embed, justFinished: true }).embed?.justFinished).toBe(true);
    expect(buildView({ ...base, tx: tx({ status: 'C' }), embed, justFinished: true }).embed?.justFinished).toBe(true);
    // Only a finished transaction is reported, whatever the request claimed.
    expect(buildView({ ...base, tx: tx({ status: 'N' }), embed, justFinished: true }).embed?.justFinished).toBe(false);
    expect(buildView({ ...base, tx: tx(), justFinished: true }).embed).toBeNull();
  });
});
