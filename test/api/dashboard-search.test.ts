import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Browser, member } from './dashboard';
import { clientBody } from './documents';
import { type Client, ENGINES, startTestService, testClock, type TestService } from './harness';
import { fund } from './ledger';
import { paidTransaction, payToken, priced } from './pay';

// The transactions list's date range and search box (order id, token, customer email, card's
// last four, amount), and a transaction's page with its authorization, source and
// destination and status history, on both engines.

const DAY = 86_400_000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

describe.each(ENGINES)('dashboard transaction search on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let viewer: Browser;
  /** Order ids of this run: the PostgreSQL database is shared with earlier runs. */
  const run = randomUUID().slice(0, 8);
  const order = (name: string) => `${name}-${run}`;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now });
    shop = await t.newEnvironment('Search shop');
    viewer = (await member(t, shop, 'viewer')).browser;
  });
  afterAll(() => t?.close());

  /** The order ids of this run that a list page shows. */
  const found = async (query: string) => {
    const page = await viewer.get(`/dashboard/transactions/?${query}`);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    return [...page.text.matchAll(new RegExp(`>([^<>]*-${run})</a>`, 'g'))].map((m) => m[1]!).sort();
  };
  const q = (text: string) => `q=${encodeURIComponent(text)}`;
  const wallet = async (email: string) => {
    const client = await shop.post('/client/', clientBody({ email, name: 'Grace Hopper' }));
    expect(client.status, client.text).toBe(201);
    const created = await shop.post('/wallet/', { wallet_id: `w-${randomUUID()}`, name: 'Purse', client_id: client.body.id, currency: 'EUR' });
    expect(created.status, created.text).toBe(201);
    return created.body;
  };

  it('filters by a range of whole UTC days; a date that is no date or a backwards range is named, never a 500', async () => {
    clock.advance(-10 * DAY);
    const oldDay = dayOf(clock.now());
    expect((await shop.post('/transaction/', priced('EUR', 3, { order_id: order('old') }))).status).toBe(201);
    clock.reset();
    const today = dayOf(clock.now());
    expect((await shop.post('/transaction/', priced('EUR', 3, { order_id: order('new') }))).status).toBe(201);
    const before = dayOf(new Date(clock.now().getTime() - DAY));

    expect(await found(`from=${oldDay}&to=${oldDay}`)).toEqual([order('old')]);
    expect(await found(`from=${today}`)).toEqual([order('new')]);
    expect(await found(`to=${before}&${q(run)}`)).toEqual([order('old')]);
    expect(await found(`from=${oldDay}&to=${today}&${q(run)}`)).toEqual([order('new'), order('old')]);

    const nonsense = await viewer.get('/dashboard/transactions/?from=2026-02-30&to=yesterday');
    expect(nonsense.status).toBe(200);
    expect(nonsense.text).toContain('Not understood, so not applied: start date, end date.');
    const backwards = await viewer.get(`/dashboard/transactions/?from=${today}&to=${oldDay}&${q(run)}`);
    expect(backwards.text).toContain('The end date is before the start date');
    // Left out, so both show.
    expect(backwards.text).toContain(order('old'));
    expect(backwards.text).toContain(order('new'));
    // An amount range the same way: the highest below the lowest is left out and said so;
    // the same amount at both ends is no such range (3 EUR typed as 3 and 3,000).
    const amounts = await viewer.get(`/dashboard/transactions/?min=10&max=5&${q(run)}`);
    expect(amounts.text).toContain('The highest amount is below the lowest, so the amounts were not applied.');
    expect(amounts.text).toContain(order('old'));
    expect(amounts.text).toContain(order('new'));
    const both = await viewer.get(`/dashboard/transactions/?from=${today}&to=${oldDay}&min=10&max=5&${q(run)}`);
    expect(both.text).toContain('The end date is before the start date, so the dates were not applied. The highest amount is below the lowest');
    expect(await found(`min=3&max=3,000&${q(run)}`)).toEqual([order('new'), order('old')]);
  });

  it('finds by a part of the order id, any case, with % _ and \\ taken literally', async () => {
    for (const id of ['Ab%_x', 'abcdx', 'a\\b']) expect((await shop.post('/transaction/', priced('EUR', 4, { order_id: order(id) }))).status).toBe(201);
    expect(await found(q(`AB%_X-${run}`))).toEqual([order('Ab%_x')]);
    expect(await found(q('%_'))).toEqual([order('Ab%_x')]);
    expect(await found(q('a\\b'))).toEqual([order('a\\b')]);
    expect(await found(q(`bcdx-${run}`))).toEqual([order('abcdx')]);
    expect(await found(q('_'))).toEqual([order('Ab%_x')]);
    expect((await shop.post('/transaction/', priced('EUR', 4, { order_id: order('PEDIDO-ÑANDÚ') }))).status).toBe(201);
    expect(await found(q('pedido-ñandú'))).toEqual([order('PEDIDO-ÑANDÚ')]);
  });

  it('finds by token, by the card’s last four and by an amount in the row’s currency', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 12.5, { order_id: order('tok') }));
    const { transaction: paid } = await paidTransaction(shop, priced('EUR', 7.77, { order_id: order('card') }));
    expect((await shop.post('/transaction/', priced('JPY', 1250, { order_id: order('yen') }))).status).toBe(201);
    expect((await shop.post('/transaction/', priced('KWD', 1.25, { order_id: order('dinar') }))).status).toBe(201);

    expect(await found(q(created.body.token))).toEqual([order('tok')]);
    // Only the paid one has a card ending 4242 (and no amount or order id of this run says 4242).
    expect(await found(`${q('4242')}&from=${dayOf(clock.now())}`)).toContain(order('card'));
    expect(await found(`${q('4242')}&from=${dayOf(clock.now())}`)).not.toContain(order('tok'));
    expect(paid.status).toBe('D');
    // 12.5 EUR is 1250 cents; 1250 JPY is 1250 yen: a typed amount is read in each row's own currency.
    expect((await found(q('12.50'))).filter((o) => o.startsWith('tok'))).toEqual([order('tok')]);
    expect((await found(q('12,5'))).filter((o) => o.startsWith('tok'))).toEqual([order('tok')]);
    const twelveFifty = await found(q('1250'));
    expect(twelveFifty).toContain(order('yen'));
    expect(twelveFifty).not.toContain(order('tok'));
    expect(await found(q('1.250'))).toContain(order('dinar'));
    expect(await found(q('1.250'))).not.toContain(order('tok'));
    expect(await found(q('12.51'))).not.toContain(order('tok'));
    expect(await found(q('7.77'))).toContain(order('card'));
  });

  it('finds by the email of the client whose wallet paid or was paid, not by anyone else’s', async () => {
    const email = `Payer.${run}@Example.com`;
    const payer = await wallet(email);
    const other = await wallet(`someone.${run}@example.com`);
    await fund(shop, payer, 20);
    await fund(shop, other, 20);
    const res = await shop.post('/transaction/', priced('EUR', 5, { order_id: order('from-wallet'), source: [{ wallet_id: payer.id, amount: 5 }] }));
    expect(res.status, res.text).toBe(201);
    expect(await found(q(`payer.${run}@example`))).toEqual([order('from-wallet')]);
    expect(await found(q(`PAYER.${run}@EXAMPLE.COM`))).toEqual([order('from-wallet')]);
    expect(await found(q(`nobody.${run}@example.com`))).toEqual([]);
  });

  it('pages through results with the filters kept; nonsense never answers a 500', async () => {
    for (let i = 0; i < 21; i++) expect((await shop.post('/transaction/', priced('EUR', 1, { order_id: order(`pager${i}`) }))).status).toBe(201);
    const first = await viewer.get(`/dashboard/transactions/?${q(`pager`)}&from=${dayOf(clock.now())}`);
    expect(first.text).toContain('Page 1 of 2');
    const next = /href="(\/dashboard\/transactions\/\?[^"]*page=2)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toContain('q=pager');
    expect(next).toContain(`from=${dayOf(clock.now())}`);
    const second = await viewer.get(next!);
    expect(second.text).toContain('Page 2 of 2');
    expect([...second.text.matchAll(/>pager\d+-/g)]).toHaveLength(1);
    // Past the end: said so, with the way back to the last page; not the first run's help.
    const past = await viewer.get(next!.replace('page=2', 'page=99'));
    expect(past.text).toContain('There is no page 99: the list ends at page 2.');
    expect(past.text).not.toContain('curl');
    expect(/href="(\/dashboard\/transactions\/\?[^"]*page=\d+)">Last page</.exec(past.text)?.[1]).toMatch(/page=2$/);

    for (const nonsense of ['%00', '%', '\\', "' or 1=1 --", 'x'.repeat(201), '%ED%A0%80', '\u0000abc', '9'.repeat(40), '1e5', '-5', '0,001', '..']) {
      const page = await viewer.get(`/dashboard/transactions/?q=${nonsense.startsWith('%') && nonsense.length > 1 ? nonsense : encodeURIComponent(nonsense)}&page=${encodeURIComponent(nonsense)}`);
      expect(page.status, nonsense).toBe(200);
    }
    const tooLong = await viewer.get(`/dashboard/transactions/?q=${'x'.repeat(201)}`);
    expect(tooLong.text).toContain('Not understood, so not applied: search.');
    const control = await viewer.get('/dashboard/transactions/?q=a%00b&order_id=c%01d');
    expect(control.text).toContain('Not understood, so not applied: order id, search.');
    const repeated = await viewer.get(`/dashboard/transactions/?q=${encodeURIComponent(order('pager3'))}&q=zzz&from[]=1`);
    expect(repeated.status).toBe(200);
  });

  it('a transaction’s page shows its stored card, its source and destination, and its history', async () => {
    const email = `buyer.${run}@example.com`;
    const payer = await wallet(email);
    const seller = await wallet(`seller.${run}@example.com`);
    await fund(shop, payer, 10);
    const split = await shop.post(
      '/transaction/',
      priced('EUR', 6, { order_id: order('split'), source: [{ wallet_id: payer.id, amount: 6 }], destination: [{ wallet_id: seller.id, amount: 4.5, concept: 'Her share' }] }),
    );
    expect(split.status, split.text).toBe(201);
    const page = await viewer.get(`/dashboard/transactions/${split.body.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Paid from');
    expect(page.text).toContain(`Wallet ${payer.wallet_id} of Grace Hopper (${email})`);
    expect(page.text).toContain('€6.00');
    expect(page.text).toContain('Paid to');
    expect(page.text).toContain(`Wallet ${seller.wallet_id} of Grace Hopper`);
    expect(page.text).toContain('€4.50');
    expect(page.text).toContain('Her share');
    expect(page.text).toContain('Paid from its sources');
    // Paid without a card: no sale, and no claim that it is unpaid.
    expect(page.text).not.toContain('No sale yet');

    const held = await shop.post('/transaction/', priced('EUR', 9, { order_id: order('held'), authorize: true }));
    await payToken(shop.url, held.body.token, TEST_CARDS.declined);
    expect((await shop.get(`/transaction/${held.body.id}/`)).body.status).toBe('N');
    expect(await payToken(shop.url, held.body.token)).toBe(200);
    const detail = await viewer.get(`/dashboard/transactions/${held.body.id}/`);
    const auths = (await shop.get(`/authorization/?transaction_id=${held.body.id}`)).body.results;
    expect(auths).toHaveLength(1);
    expect(detail.text).toContain('Stored card (authorization)');
    expect(detail.text).toContain(`data-authorization="${auths[0].id}"`);
    expect(detail.text).toContain('Active: can be charged again');
    expect(detail.text).toMatch(/<dd>12\/(20)?34<\/dd>/);
    // Created, declined, approved, paid: in that order.
    const history = /<ol class="history">([\s\S]*?)<\/ol>/.exec(detail.text)?.[1] ?? '';
    const steps = ['Created, waiting for payment', 'Payment declined', 'Payment approved', 'Paid'].map((s) => history.indexOf(s));
    expect(steps.every((at) => at >= 0), history).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(detail.text).not.toContain('Paid from');
  });
});
