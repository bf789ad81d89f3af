import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { cancelToken, freshCard, payToken, priced } from './pay';
import { TEST_CARDS } from '../../server/domain/test-cards';

// The payments list's filters (issue 47), as GET parameters that combine: the status in
// words, the currency, a range of days, an amount range in each currency's own units and a
// card's last four; the demo shop's and the test tool's rows hidden unless asked for. Each
// filter is checked against what the list itself says of every row it keeps, on both engines.

/** A Mastercard ending 4444 of this run's own (freshCard). */
const MASTERCARD = freshCard('5555', '4444');

describe.each(ENGINES)('the payments list filters on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let admin: Browser;
  /** Order id → transaction id of this file's payments. */
  const ids = new Map<string, string>();

  const make = async (order: string, currency: string, price: number) => {
    const created = await shop.post('/transaction/', priced(currency, price, { order_id: order }));
    expect(created.status).toBe(201);
    ids.set(order, created.body.id);
    return created.body;
  };
  const paid = async (order: string, currency: string, price: number, card?: string) => {
    const tx = await make(order, currency, price);
    expect(await payToken(shop.url, tx.token, card)).toBe(200);
    return (await shop.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
  };

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Filters shop');
    admin = (await member(t, shop, 'admin')).browser;
    await paid('paid-eur', 'EUR', 20);
    const part = await paid('part-eur', 'EUR', 30, MASTERCARD);
    expect((await shop.post(`/sale/${part.id}/refund/`, { amount: 5, reason: 'other' })).status).toBe(200);
    const whole = await paid('whole-eur', 'EUR', 12.5);
    expect((await shop.post(`/sale/${whole.id}/refund/`, {})).status).toBe(200);
    await paid('paid-jpy', 'JPY', 1500, MASTERCARD);
    const declined = await make('failed-eur', 'EUR', 40);
    await payToken(shop.url, declined.token, TEST_CARDS.declined);
    await make('open-usd', 'USD', 25);
    const cancelled = await make('cancelled-eur', 'EUR', 8);
    expect(await cancelToken(shop.url, cancelled.token)).toBeLessThan(400);
    await paid('demo-tool', 'EUR', 30);
    // The same payment, paid with a declined card first then the right one: "Paid", not "Failed".
    const retried = await make('retried-eur', 'EUR', 33);
    await payToken(shop.url, retried.token, TEST_CARDS.declined);
    expect(await payToken(shop.url, retried.token)).toBe(200);
  });
  afterAll(() => t?.close());

  /** The rows a list page shows: order id → status in words, in the list's order. */
  const rows = async (query: string) => {
    const page = await admin.get(`/dashboard/transactions/?${query}`);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    const found = new Map<string, string>();
    for (const m of page.text.matchAll(/<tr data-payment="([^"]+)">[\s\S]*?data-status="([a-z_]+)"[\s\S]*?<\/tr>/g)) {
      const order = [...ids].find(([, id]) => id === m[1])?.[0] ?? m[1]!;
      found.set(order, m[2]!);
    }
    return { found, text: page.text };
  };
  const orders = async (query: string) => [...(await rows(query)).found.keys()].sort();

  it('every row reads its status in words; demo and test-tool rows hidden until asked for', async () => {
    const { found } = await rows('');
    expect(Object.fromEntries(found)).toEqual({
      'paid-eur': 'paid',
      'part-eur': 'partially_refunded',
      'whole-eur': 'refunded',
      'paid-jpy': 'paid',
      'failed-eur': 'failed',
      'open-usd': 'incomplete',
      'cancelled-eur': 'cancelled',
      'retried-eur': 'paid',
    });
    expect((await rows('all=1')).found.get('demo-tool')).toBe('paid');
  });

  it('a status in words keeps exactly the rows that read so', async () => {
    const { found } = await rows('');
    for (const status of ['paid', 'partially_refunded', 'refunded', 'failed', 'incomplete', 'cancelled', 'expired', 'disputed', 'uncaptured']) {
      const want = [...found].filter(([, s]) => s === status).map(([order]) => order).sort();
      expect(await orders(`status=${status}`), status).toEqual(want);
    }
    expect(await orders('status=paid&all=1')).toEqual(['demo-tool', 'paid-eur', 'paid-jpy', 'retried-eur']);
  });

  it('amount ranges are in each currency’s own units, bounds included', async () => {
    expect(await orders('min=20&max=30')).toEqual(['open-usd', 'paid-eur', 'part-eur']);
    expect(await orders('min=20.01&max=29,99')).toEqual(['open-usd']);
    // ¥1,500 is 1500 yen; €20 is not 2000 of anything here.
    expect(await orders('min=1000')).toEqual(['paid-jpy']);
    expect(await orders('max=12.50')).toEqual(['cancelled-eur', 'whole-eur']);
    // Half a yen rounds inwards: ¥1,500 is within 1499.5 to 1500.4, not within 1500.5 to 1600.
    expect(await orders('min=1499.5&max=1500.4&currency=JPY')).toEqual(['paid-jpy']);
    expect(await orders('min=1500.5&max=1600')).toEqual([]);
  });

  it('filters combine: status, currency, card, amount and days together; the form keeps them', async () => {
    expect(await orders('card=4444')).toEqual(['paid-jpy', 'part-eur']);
    expect(await orders('card=4444&currency=EUR')).toEqual(['part-eur']);
    expect(await orders('card=4444&status=paid')).toEqual(['paid-jpy']);
    // The card's brand, alone or with its last four (of the same card) and the others.
    expect(await orders('brand=mastercard')).toEqual(['paid-jpy', 'part-eur']);
    expect(await orders('brand=mastercard&card=4444&currency=EUR&status=partially_refunded')).toEqual(['part-eur']);
    expect(await orders('brand=visa&card=4444')).toEqual([]);
    expect(await orders('brand=visa&status=refunded')).toEqual(['whole-eur']);
    expect(await orders('brand=amex')).toEqual([]);
    expect(await orders('status=paid&currency=eur&min=15')).toEqual(['paid-eur', 'retried-eur']);
    const today = t.service.deps.now().toISOString().slice(0, 10);
    expect(await orders(`status=refunded&from=${today}&to=${today}`)).toEqual(['whole-eur']);
    expect(await orders('status=refunded&to=2001-01-01')).toEqual([]);
    const { text } = await rows('status=partially_refunded&min=1&card=4444&brand=mastercard');
    expect(text).toContain('<option value="partially_refunded" selected>Partially refunded</option>');
    expect(text).toMatch(/id="f-min" name="min"[^>]*value="1"/);
    expect(text).toMatch(/id="f-card" name="card"[^>]*value="4444"/);
    expect(text).toMatch(/<select id="f-brand" name="brand"><option value>Any brand<\/option>.*<option value="mastercard" selected>Mastercard<\/option>/);
  });

  it('saved views: a member saves the filters in use by name, lists them above the table, opens and deletes them; nobody else sees them', async () => {
    const viewsOf = (html: string) => [...html.matchAll(/<li><a href="\/dashboard\/transactions\/\?([^"]*)">([^<]*)<\/a><form method="post" action="\/dashboard\/transactions\/views\/([^/]+)\/delete\/"/g)].map((m) => ({ query: m[1]!.replaceAll('&amp;', '&'), name: m[2]!, id: m[3]! }));
    await rows('status=refunded&currency=EUR');
    const saved = await admin.post('/dashboard/transactions/views/', { name: 'Refunds <in> euros', status: 'refunded', currency: 'EUR', page: '3', min: 'nonsense' });
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    expect(saved.location).toBe('/dashboard/transactions/?status=refunded&currency=EUR');
    const list = await rows('');
    const [view] = viewsOf(list.text);
    expect(viewsOf(list.text)).toEqual([{ query: 'status=refunded&currency=EUR', name: 'Refunds &lt;in> euros', id: expect.any(String) }]);
    expect(await orders(view!.query)).toEqual(['whole-eur']);
    // Another member of the same shop, a viewer, keeps views of their own and never sees these.
    const viewer = (await member(t, shop, 'viewer')).browser;
    expect(viewsOf((await viewer.get('/dashboard/transactions/')).text)).toEqual([]);
    expect((await viewer.post('/dashboard/transactions/views/', { name: 'Mastercard', brand: 'mastercard', card: '4444' })).status).toBe(303);
    const [mastercard] = viewsOf((await viewer.get('/dashboard/transactions/')).text);
    expect(mastercard).toMatchObject({ name: 'Mastercard', query: 'brand=mastercard&card=4444' });
    expect((await viewer.get(`/dashboard/transactions/?${mastercard!.query}`)).text).toContain('<option value="mastercard" selected>Mastercard</option>');
    expect(viewsOf((await rows('')).text).map((v) => v.name)).toEqual(['Refunds &lt;in> euros']);
    // Their delete of it is a 404; without the CSRF token, a 403; neither deletes it.
    expect((await viewer.post(`/dashboard/transactions/views/${view!.id}/delete/`, {})).status).toBe(404);
    expect((await admin.post(`/dashboard/transactions/views/${view!.id}/delete/`, {}, { csrf: null })).status).toBe(403);
    expect((await admin.post('/dashboard/transactions/views/', { name: 'No token', status: 'paid' }, { csrf: null })).status).toBe(403);
    expect(viewsOf((await rows('')).text)).toHaveLength(1);
    // A name that is empty, too long or has a line break is refused; nothing saved.
    for (const name of ['', '   ', 'x'.repeat(61), 'two\nlines']) {
      const refused = await admin.post('/dashboard/transactions/views/', { name, status: 'paid' });
      expect(refused.status, name).toBe(400);
      expect(refused.text).toContain('Give the view a name of 1 to 60 characters on one line.');
    }
    expect(viewsOf((await rows('')).text)).toHaveLength(1);
    const deleted = await admin.post(`/dashboard/transactions/views/${view!.id}/delete/`, {});
    expect([deleted.status, deleted.location]).toEqual([303, '/dashboard/transactions/']);
    expect(viewsOf((await rows('')).text)).toEqual([]);
    expect((await admin.post(`/dashboard/transactions/views/${view!.id}/delete/`, {})).status).toBe(404);
  });

  it('a value that is no filter is named and left out; the others still apply', async () => {
    const { found, text } = await rows('status=D&min=ten&card=44&brand=bogus&currency=EUR');
    expect(text).toMatch(/Not understood, so not applied: status, lowest amount, card brand, card(&#39;|')s last four\./);
    expect([...found.keys()].sort()).toEqual(['cancelled-eur', 'failed-eur', 'paid-eur', 'part-eur', 'retried-eur', 'whole-eur']);
  });
});
