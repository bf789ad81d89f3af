import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { ENGINES, problemPaths, transactionBody, useTestService } from './harness';
import { SANDBOX_CARD } from './pay';

// Text is text: a NUL, another control character or an unpaired surrogate in any text field
// or filter is a 400 naming the field, on both engines alike (PostgreSQL refuses them in
// text, SQLite would store them), and it is refused before any gateway call: a charge whose
// description the database would refuse after the gateway charged was a 500, retried, and
// charged again (issue 25, item 4).

const NUL = '\u0000';
/** Raw JSON, so an unpaired surrogate travels as the escape JSON allows for it. */
const raw = (value: unknown, surrogate: string) => JSON.stringify(value).replace('"@LONE@"', `"${surrogate}"`);

describe.each(ENGINES)('the text rule (%s)', (engine) => {
  const svc = useTestService(engine);

  async function authorization(): Promise<string> {
    const card = { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ana García' };
    const res = await svc.api.post('/authorization/', { gateway: SANDBOX_CARD, card });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  it('a NUL in a charge description is a 400 before the gateway is called', async () => {
    const id = await authorization();
    const charges = `/sale/?authorization_id=${id}`;
    for (const description of [`Order 1${NUL}`, `${NUL}`, 'Tab\tand\nline are fine, DEL\u007f is not', 'C1 \u0085 too']) {
      const res = await svc.api.post(`/authorization/${id}/charge/`, { amount: 5, currency: 'EUR', description }, { 'idempotency-key': `k-${description.length}` });
      expect(res.status, res.text).toBe(400);
      expect(problemPaths(res)).toEqual(['description']);
    }
    expect(await svc.api.count(charges)).toBe(0);
    // The same charge with a clean description goes through, once: the gateway is reachable.
    const ok = await svc.api.post(`/authorization/${id}/charge/`, { amount: 5, currency: 'EUR', description: 'Order 1\twith a tab\nand a line' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.description).toBe('Order 1\twith a tab\nand a line');
    expect(await svc.api.count(charges)).toBe(1);
  });

  it('a NUL in a product line name is a 400 naming the line; nothing is created', async () => {
    const before = await svc.api.count('/transaction/');
    const line = (name: string) => transactionBody({ products: [{ amount: 1, product: { name: 'Tea', price: 3 } }, { amount: 1, product: { name, price: 2 } }] });
    const res = await svc.api.post('/transaction/', line(`Mug${NUL}`));
    expect(res.status, res.text).toBe(400);
    expect(problemPaths(res)).toEqual(['products.1.product.name']);
    // A name is one line: a tab or a line break is refused too.
    for (const name of ['Mug\tlarge', 'Mug\nlarge']) {
      const tab = await svc.api.post('/transaction/', line(name));
      expect(tab.status, name).toBe(400);
      expect(problemPaths(tab)).toEqual(['products.1.product.name']);
    }
    // A source-paid transaction would charge its cards: it is refused first as well.
    const id = await authorization();
    const paid = await svc.api.post(
      '/transaction/',
      transactionBody({ products: [{ amount: 1, product: { name: `Mug${NUL}`, price: 2 } }], source: [{ amount: 2, authorization_id: id }] }),
    );
    expect(paid.status).toBe(400);
    expect(problemPaths(paid)).toEqual(['products.0.product.name']);
    expect(await svc.api.count(`/sale/?authorization_id=${id}`)).toBe(0);
    expect(await svc.api.count('/transaction/')).toBe(before);
  });

  it('an unpaired surrogate is refused; a pair (an emoji) is text', async () => {
    for (const surrogate of ['\\ud800', '\\udc00', 'a\\ud83d']) {
      const res = await svc.api.request('POST', '/transaction/', {
        raw: raw(transactionBody({ order_id: '@LONE@' }), surrogate),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, surrogate).toBe(400);
      expect(problemPaths(res)).toEqual(['order_id']);
    }
    const emoji = await svc.api.post('/transaction/', transactionBody({ order_id: 'coffee ☕ 😀', note: 'ok 😀\r\n' }));
    expect(emoji.status, emoji.text).toBe(201);
    const read = await svc.api.get(`/transaction/${emoji.body.id}/`);
    expect(read.body).toMatchObject({ order_id: 'coffee ☕ 😀', note: 'ok 😀' });
  });

  it('every kind of text field refuses control characters, naming its path', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/transaction/', transactionBody({ note: `a${NUL}b` }), 'note'],
      ['POST', '/transaction/', transactionBody({ extra: `{"a":"${NUL}"}` }), 'extra'],
      // The strings inside `extra`, escaped, at any depth.
      ['POST', '/transaction/', transactionBody({ extra: '{"a":[{"b":"\\u0000"}]}' }), 'extra'],
      ['POST', '/transaction/', transactionBody({ extra: '{"\\u0007":1}' }), 'extra'],
      ['POST', '/transaction/', transactionBody({ return_url: `https://shop.example/ok${NUL}` }), 'return_url'],
      ['POST', '/transaction/', transactionBody({ tax_name: 'VAT\u009b' }), 'tax_name'],
      ['POST', '/product/', { name: 'Mug', description: `x${NUL}`, price: 1 }, 'description'],
      ['POST', '/product/', { name: 'Mug', product_id: 'a\tb', price: 1 }, 'product_id'],
      ['POST', '/client/', { name: 'Ana', id_country: 'ES', id_number: `X${NUL}1` }, 'id_number'],
      ['POST', '/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: `Ana${NUL}` } }, 'card.name'],
      ['POST', '/wallet/', { wallet_id: `w${NUL}`, name: 'W', client_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e', currency: 'EUR' }, 'wallet_id'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await svc.api.request(method, path, { body });
      expect(res.status, `${path} ${field}: ${res.text}`).toBe(400);
      expect(problemPaths(res)).toContain(field);
    }
  });

  it('text filters refuse control characters: 400 naming query.<name>', async () => {
    for (const [path, field] of [
      ['/transaction/?order_id=a%00b', 'query.order_id'],
      ['/sale/?currency=%00', 'query.currency'],
      ['/product/?product_id=%07', 'query.product_id'],
      ['/client/?client_id=a%0Ab', 'query.client_id'],
      ['/wallet/?wallet_id=%C2%85', 'query.wallet_id'],
      ['/transfer/?transfer_id=%7F', 'query.transfer_id'],
      ['/subscription/?subscription_id=%00', 'query.subscription_id'],
    ]) {
      const res = await svc.api.get(path!);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(problemPaths(res)).toEqual([field]);
    }
    expect((await svc.api.get('/transaction/?order_id=order%201')).status).toBe(200);
  });

  it("the checkout form refuses a NUL in the card holder's name: the page, 400, nothing charged", async () => {
    const created = await svc.api.post('/transaction/', transactionBody());
    const token = created.body.token as string;
    const page = await (await fetch(`${svc.t.url}/pay/${token}/`)).text();
    const { csrf } = JSON.parse(/<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(page)![1]!).view as { csrf: string };
    const res = await fetch(`${svc.t.url}/pay/${token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: `Ana${NUL}` } }),
    });
    expect(res.status).toBe(400);
    await res.arrayBuffer();
    expect(await svc.api.count(`/sale/?transaction_id=${created.body.id}`)).toBe(0);
    expect((await svc.api.get(`/transaction/${created.body.id}/`)).body.status).toBe('N');
  });
});
