import { describe, expect, it } from 'vitest';
import { ENGINES, transactionBody, useTestService } from './harness';

describe.each(ENGINES)('transactions on %s', (engine) => {
  const svc = useTestService(engine);

  it('creates a transaction with exact totals in minor units', async () => {
    const res = await svc.api.post('/transaction/', {
      currency: 'EUR',
      products: [
        { amount: 2, product: { name: 'Coffee', price: 8.5 } },
        { amount: 1.5, product: { name: 'Tea', price: 3.33 } }, // 4.995 → 5.00 (half away from zero)
      ],
      tax_value: 1.05,
      coupon_value: 2,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'N',
      currency: 'EUR',
      items_price: 22,
      total_price: 21.05,
      authorize: false,
      gateway_selected: false,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(res.body.token).not.toBe(res.body.id);
    expect(res.body.payment_url).toBe(`${svc.t.url}/pay/${res.body.token}/`);
    const week = Date.parse(res.body.expired_date) - Date.parse(res.body.created);
    expect(week).toBe(7 * 24 * 60 * 60 * 1000);

    const read = await svc.api.get(`/transaction/${res.body.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('uses each currency exponent: JPY has none, KWD three', async () => {
    const jpy = await svc.api.post('/transaction/', transactionBody({ currency: 'JPY', products: [{ amount: 3, product: { name: 'Mochi', price: 150 } }] }));
    expect(jpy.status).toBe(201);
    expect(jpy.body.total_price).toBe(450);
    const jpyFraction = await svc.api.post('/transaction/', transactionBody({ currency: 'JPY', products: [{ amount: 1, product: { name: 'Mochi', price: 1.5 } }] }));
    expect(jpyFraction.status).toBe(400);
    expect(jpyFraction.body.errors[0].path).toBe('products.0.product.price');
    const kwd = await svc.api.post('/transaction/', transactionBody({ currency: 'KWD', products: [{ amount: 1, product: { name: 'Dates', price: 1.234 } }] }));
    expect(kwd.status).toBe(201);
    expect(kwd.body.total_price).toBe(1.234);
  });

  it('prices references to catalogue tax, shipping and coupon, and explicit values override', async () => {
    const product = await svc.api.post('/product/', { name: 'Mug', price: 12.5, currency: 'EUR' });
    const tax = await svc.api.post('/tax/', { name: 'VAT', rate: 21 });
    const ship = await svc.api.post('/shipping/', { name: 'Courier', price: 4.95, currency: 'EUR' });
    const coupon = await svc.api.post('/coupon/', { name: 'WELCOME10', code: 'WELCOME10', kind: 'percent', value: 10 });
    for (const r of [product, tax, ship, coupon]) expect(r.status).toBe(201);

    const res = await svc.api.post('/transaction/', {
      currency: 'EUR',
      products: [{ amount: 3, product_id: product.body.id }],
      tax: tax.body.id,
      shipping: ship.body.id,
      coupon: coupon.body.id,
    });
    expect(res.status).toBe(201);
    // items 37.50; VAT 21 % = 7.875 → 7.88; shipping 4.95; coupon 10 % = 3.75
    expect(res.body).toMatchObject({
      items_price: 37.5,
      tax_value: 7.88,
      tax_name: 'VAT',
      tax: tax.body.id,
      shipping_value: 4.95,
      shipping_name: 'Courier',
      coupon_value: 3.75,
      coupon_name: 'WELCOME10',
      total_price: 46.58,
    });
    expect(res.body.products[0]).toMatchObject({ amount: 3, product_id: product.body.id, product: { name: 'Mug', price: 12.5 }, total: 37.5 });

    const overridden = await svc.api.post('/transaction/', {
      currency: 'EUR',
      products: [{ amount: 1, product_id: product.body.id }],
      tax: tax.body.id,
      tax_value: 1,
      tax_name: 'Reduced VAT',
    });
    expect(overridden.body).toMatchObject({ tax_value: 1, tax_name: 'Reduced VAT', total_price: 13.5 });
  });

  it('never lets the total go below zero', async () => {
    const res = await svc.api.post('/transaction/', transactionBody({ coupon_value: 1000 }));
    expect(res.status).toBe(201);
    expect(res.body.total_price).toBe(0);
  });

  it('refuses source amounts that do not add up to the total (paying from sources: sources.test.ts)', async () => {
    const wallet_id = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
    const res = await svc.api.post('/transaction/', transactionBody({ source: [{ wallet_id, amount: 17.01 }] }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('source');
    const ok = await svc.api.post('/transaction/', transactionBody({ source: null, destination: null }));
    expect(ok.status).toBe(201);
    expect(ok.body.source).toBeNull();
  });

  it('shows E when read past expired_date', async () => {
    const soon = new Date(svc.clock.now().getTime() + 1500).toISOString();
    const res = await svc.api.post('/transaction/', transactionBody({ expired_date: soon }));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('N');
    svc.clock.advance(1700);
    try {
      const read = await svc.api.get(`/transaction/${res.body.id}/`);
      expect(read.body.status).toBe('E');
      const list = await svc.api.get('/transaction/?status=E');
      expect(list.body.results.map((x: { id: string }) => x.id)).toContain(res.body.id);
    } finally {
      svc.clock.reset();
    }
  });

  it('paginates newest first with absolute links and filters', async () => {
    const env = await svc.t.newEnvironment('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await env.post('/transaction/', transactionBody({ order_id: i === 2 ? 'special' : `o-${i}` }));
      ids.push(r.body.id);
    }
    const first = await env.get('/transaction/?page_size=2');
    expect(first.body.count).toBe(5);
    expect(first.body.items_per_page).toBe(2);
    expect(first.body.results.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${svc.t.url}/v1/transaction/?page_size=2&page=2`);
    const last = await env.get('/transaction/?page_size=2&page=3');
    expect(last.body.results.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(last.body.next).toBeNull();
    expect(last.body.previous).toContain('page=2');
    const filtered = await env.get('/transaction/?order_id=special');
    expect(filtered.body.count).toBe(1);
    expect(filtered.body.results[0].id).toBe(ids[2]);
    const big = await env.get('/transaction/?page_size=101');
    expect(big.status).toBe(400);
    expect(big.body.errors[0].path).toBe('query.page_size');
  });
});
