import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_REDIRECT_ID } from '../../server/payments/sandbox';
import { updateEnvironment } from '../../server/store/environments';
import type { InitialState } from '../../widget/screen/state';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { cancelToken, payToken } from './pay';

// GET /pay/{token}/ keeps rendered pages in memory. What a customer sees must not change
// because of it: each response has its own nonce and clock, a payment, a cancellation, a
// renamed merchant or new embed origins show at once, languages and embeddings never mix,
// and the countdown and the expired page come when the clock says so.
//
// Whether an answer came from memory is seen from outside by changing a line's name in
// the database behind the page's back (line names are fixed once a transaction exists, so
// the version does not cover them): a kept page still shows the old name, a fresh
// rendering the new one.

const S = 1000;
const MIN = 60 * S;
const ORIGINAL_LINE = 'Coffee beans';

interface Page {
  status: number;
  headers: Headers;
  html: string;
  /** The rendered screen alone, without the state (which holds every string of the language). */
  app: string;
  /** From the Content-Security-Policy header. */
  nonce: string;
  frameAncestors: string;
  state: InitialState;
}

describe.each(ENGINES)('payment page cache on %s', (engine) => {
  let t: TestService;
  let api: Client;
  /** The service's clock is real time shifted by this much. */
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  /** Moves the service's clock to about `at` (it keeps running from there). */
  const setClock = (at: number) => void (offset = at - Date.now());
  const db = () => t.service.deps.database.db;

  beforeAll(async () => {
    t = await startTestService(engine, { now });
    api = await t.newEnvironment('Cache Shop');
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    offset = 0;
  });

  async function create(client: Client = api, over: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const res = await client.post('/transaction/', transactionBody(over));
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id, token: res.body.token };
  }

  async function open(token: string, query = '', headers: Record<string, string> = {}, base = t.url): Promise<Page> {
    const res = await fetch(`${base}/pay/${token}/${query}`, { headers, redirect: 'manual' });
    const html = await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    const frameAncestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1];
    const state = /<script type="application\/json" id="checkout-state" nonce="([^"]*)">([\s\S]*?)<\/script>/.exec(html);
    expect(res.status, html.slice(0, 300)).toBe(200);
    expect(nonce).toBeDefined();
    expect(state, 'state element').not.toBeNull();
    // Every script, the state's included, carries the nonce of this response's header.
    const scripts = html.match(/<script\b[^>]*>/g)!;
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const tag of scripts) expect(tag).toContain(` nonce="${nonce}"`);
    const app = html.slice(html.indexOf('<div id="app">'), html.indexOf('<script type="application/json"'));
    expect(app.length).toBeGreaterThan(1000);
    return { status: res.status, headers: res.headers, html, app, nonce: nonce!, frameAncestors: frameAncestors!, state: JSON.parse(state![2]!) };
  }

  /**
   * An embed asked by an origin that may not: the refusal page (403), framable by that
   * origin alone, with nothing of the transaction and no state for the screen.
   */
  async function openRefused(token: string, origin: string) {
    const res = await fetch(`${t.url}/pay/${token}/?embed=1&origin=${origin}`, { redirect: 'manual' });
    const html = await res.text();
    expect(res.status).toBe(403);
    expect(/frame-ancestors ([^;]+)/.exec(res.headers.get('content-security-policy') ?? '')?.[1]).toBe(origin);
    expect(html).not.toContain('id="checkout-state"');
    expect(html).toContain(`"code":"origin_not_allowed"`);
    return { headers: res.headers, html };
  }

  /** Renames the transaction's line without touching anything its version covers. */
  async function renameLineBehindTheCache(id: string, name: string) {
    await db().updateTable('transaction_lines').set({ name }).where('transaction_id', '=', id).execute();
  }

  /**
   * What a page shows as its (only) line: tells a kept page from a fresh one. The lines are
   * in the markup only: the browser keeps the order summary as rendered (issue 29).
   */
  const lineOf = (page: Page) => {
    expect(page.state.view.lines).toEqual([]);
    const names = [...page.app.matchAll(/<span class="line__name">([^<]*)<\/span>/g)].map((m) => m[1]!);
    expect(names).toHaveLength(1);
    return names[0]!;
  };

  /** The document with this response's nonce and clock blanked out. */
  const blanked = (page: Page) => {
    const now = `"serverNow":"${page.state.view.serverNow}"`;
    expect(page.html.split(now)).toHaveLength(2);
    return page.html.replaceAll(page.nonce, '{nonce}').replace(now, '"serverNow":"{now}"');
  };

  it('serves the same page again with a new nonce, matching its CSP header, and the current clock', async () => {
    const { id, token } = await create();
    const t1 = Date.now() + 3 * MIN;
    setClock(t1);
    const first = await open(token);
    expect(Date.parse(first.state.view.serverNow)).toBeGreaterThanOrEqual(t1);
    expect(Date.parse(first.state.view.serverNow)).toBeLessThan(t1 + 5 * S);
    await renameLineBehindTheCache(id, 'Renamed behind the cache');

    setClock(t1 + 90 * S);
    const second = await open(token);
    expect(lineOf(second)).toBe(ORIGINAL_LINE);
    expect(second.nonce).not.toBe(first.nonce);
    expect(second.nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(Date.parse(second.state.view.serverNow)).toBeGreaterThanOrEqual(t1 + 90 * S);
    expect(Date.parse(second.state.view.serverNow)).toBeLessThan(t1 + 95 * S);
    expect(blanked(second)).toBe(blanked(first));
    expect(second.html).not.toContain(first.nonce);

    const nonces = new Set([first.nonce, second.nonce]);
    for (let i = 0; i < 5; i++) nonces.add((await open(token)).nonce);
    expect(nonces.size).toBe(7);

    for (const page of [first, second]) {
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.frameAncestors).toBe("'none'");
      expect(Number(page.headers.get('content-length'))).toBe(Buffer.byteLength(page.html));
      expect(page.state.view.status).toBe('pending');
    }
    expect(second.headers.get('content-security-policy')).toBe(first.headers.get('content-security-policy')!.replace(first.nonce, second.nonce));
  });

  it('shows the payment on the next view, in every language and embedding that was kept', async () => {
    const env = await t.newEnvironment('Paid Shop');
    await updateEnvironment(db(), env.keys.environment_id, { allowedOrigins: ['https://shop.example'] });
    const { id, token } = await create(env);
    const variants: [string, Record<string, string>][] = [
      ['', {}],
      ['', { 'accept-language': 'es' }],
      ['?embed=1&origin=https://shop.example', {}],
    ];
    for (const [query, headers] of variants) expect((await open(token, query, headers)).state.view.status).toBe('pending');
    await renameLineBehindTheCache(id, 'Paid line');
    for (const [query, headers] of variants) expect(lineOf(await open(token, query, headers))).toBe(ORIGINAL_LINE);

    expect(await payToken(t.url, token)).toBe(200);

    const [plain, es, embedded] = await Promise.all(variants.map(([query, headers]) => open(token, query, headers)));
    expect(plain!.state.view.status).toBe('paid');
    expect(plain!.app).toContain('Payment complete');
    expect(plain!.app).not.toContain('<form');
    expect(plain!.state.view.receipt).toMatchObject({ amount: 1700, last4: '4242' });
    expect(es!.app).toContain('Pago completado');
    expect(embedded!.state.view.status).toBe('paid');
    expect(embedded!.state.view.embed).toMatchObject({ parentOrigin: 'https://shop.example', justFinished: false });
    for (const page of [plain!, es!, embedded!]) expect(lineOf(page)).toBe('Paid line');
    // A paid page is rendered each time (its sale can change), never kept.
    await renameLineBehindTheCache(id, 'Paid line, later');
    expect(lineOf(await open(token))).toBe('Paid line, later');
  });

  it('shows the cancellation on the next view', async () => {
    const { id, token } = await create();
    await open(token);
    await renameLineBehindTheCache(id, 'Cancelled line');
    expect(lineOf(await open(token))).toBe(ORIGINAL_LINE);
    expect(await cancelToken(t.url, token)).toBe(200);
    const page = await open(token);
    expect(page.state.view.status).toBe('cancelled');
    expect(page.app).toContain('Payment cancelled');
    expect(page.app).not.toContain('<form');
    expect(lineOf(page)).toBe('Cancelled line');
  });

  it('shows a payment made through another instance of the service on the same database', async () => {
    const other = await startTestService(engine, { now, env: engine === 'sqlite' ? { DATA_DIR: t.dataDir } : {} });
    try {
      const { id, token } = await create();
      await open(token);
      await renameLineBehindTheCache(id, 'Paid elsewhere');
      expect(lineOf(await open(token))).toBe(ORIGINAL_LINE);
      expect(await payToken(other.url, token)).toBe(200);
      const page = await open(token);
      expect(page.state.view.status).toBe('paid');
      expect(lineOf(page)).toBe('Paid elsewhere');
    } finally {
      await other.close();
    }
  });

  it("shows the merchant's new name on the next view", async () => {
    const env = await t.newEnvironment('Old Name Shop');
    const { id, token } = await create(env);
    const before = await open(token);
    expect(before.html).toContain('<title>Pay Old Name Shop</title>');
    await renameLineBehindTheCache(id, 'Line after rename');
    expect(lineOf(await open(token))).toBe(ORIGINAL_LINE);

    await db().updateTable('environments').set({ name: 'New Name Shop' }).where('id', '=', env.keys.environment_id).execute();
    const after = await open(token);
    expect(after.html).toContain('<title>Pay New Name Shop</title>');
    expect(after.html).not.toContain('Old Name Shop');
    expect(after.state.view.merchantName).toBe('New Name Shop');
    expect(lineOf(after)).toBe('Line after rename');
    // And the new rendering is kept in turn.
    await renameLineBehindTheCache(id, 'Line after rename, later');
    expect(lineOf(await open(token))).toBe('Line after rename');
  });

  it("follows the merchant's allowed origins on the next embedded view", async () => {
    const env = await t.newEnvironment('Origins Shop');
    await updateEnvironment(db(), env.keys.environment_id, { allowedOrigins: ['https://a.example'] });
    const { id, token } = await create(env);
    const fromA = '?embed=1&origin=https://a.example';
    const fromB = '?embed=1&origin=https://b.example';
    expect((await open(token, fromA)).frameAncestors).toBe('https://a.example');
    await openRefused(token, 'https://b.example');
    await renameLineBehindTheCache(id, 'Line after origins');
    expect(lineOf(await open(token, fromA))).toBe(ORIGINAL_LINE);

    await updateEnvironment(db(), env.keys.environment_id, { allowedOrigins: ['https://b.example', 'https://c.example'] });
    const a = await openRefused(token, 'https://a.example');
    expect(a.html).not.toContain('class="embed"');
    expect(a.html).not.toContain(ORIGINAL_LINE);
    const b = await open(token, fromB);
    expect(b.frameAncestors).toBe('https://b.example https://c.example');
    expect(b.headers.get('x-frame-options')).toBeNull();
    expect(b.state.view.embed?.parentOrigin).toBe('https://b.example');
    expect(b.html).toContain('<html lang="en" class="embed">');
  });

  it('keeps one page per language: Accept-Language en and es and ?lang=fr, interleaved, never mix', async () => {
    const { id, token } = await create();
    const asks: [string, Record<string, string>, string, string][] = [
      ['', { 'accept-language': 'en-GB,en;q=0.9' }, 'en', 'Cancel payment'],
      ['', { 'accept-language': 'es-ES,es;q=0.9' }, 'es', 'Cancelar el pago'],
      ['?lang=fr', { 'accept-language': 'es-ES,es;q=0.9' }, 'fr', 'Annuler le paiement'],
    ];
    const check = (page: Page, lang: string, cancel: string) => {
      expect(page.html.startsWith(`<!doctype html><html lang="${lang}">`)).toBe(true);
      expect(page.state.view.language).toBe(lang);
      expect(page.state.strings['action.cancel']).toBe(cancel);
      expect(page.app).toContain(cancel);
      for (const [, , other, otherCancel] of asks) if (other !== lang) expect(page.app).not.toContain(otherCancel);
    };
    for (const [query, headers, lang, cancel] of asks) check(await open(token, query, headers), lang, cancel);
    await renameLineBehindTheCache(id, 'Line in any language');
    // Interleaved, sequentially and all at once: each from its own kept page.
    for (let round = 0; round < 3; round++) {
      for (const [query, headers, lang, cancel] of round === 1 ? [...asks].reverse() : asks) {
        const page = await open(token, query, headers);
        check(page, lang, cancel);
        expect(lineOf(page)).toBe(ORIGINAL_LINE);
      }
    }
    const together = await Promise.all([...asks, ...asks].map(([query, headers]) => open(token, query, headers)));
    together.forEach((page, i) => check(page, asks[i % 3]![2], asks[i % 3]![3]));
  });

  it('never gives an unknown origin the page embedded for an allowed one, nor the other way round', async () => {
    const env = await t.newEnvironment('Embed Shop');
    await updateEnvironment(db(), env.keys.environment_id, { allowedOrigins: ['https://shop.example'] });
    const { token } = await create(env);
    const allowed = async () => {
      const page = await open(token, '?embed=1&origin=https://shop.example');
      expect(page.frameAncestors).toBe('https://shop.example');
      expect(page.headers.get('x-frame-options')).toBeNull();
      expect(page.headers.get('cross-origin-opener-policy')).toBe('unsafe-none');
      expect(page.html).toContain('<html lang="en" class="embed">');
      expect(page.app).toContain('class="page page--embed"');
      expect(page.state.view.embed).toMatchObject({ parentOrigin: 'https://shop.example', justFinished: false });
    };
    const refused = async (query: string) => {
      const page = await open(token, query);
      expect(page.frameAncestors).toBe("'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(page.html).toContain('<html lang="en">');
      expect(page.app).not.toContain('page--embed');
      expect(page.html).not.toContain('https://shop.example');
      expect(page.state.view.embed).toBeNull();
    };
    // An unknown origin gets the refusal, never the payment, embedded or not.
    const unknown = async () => {
      const page = await openRefused(token, 'https://evil.example');
      expect(page.html).not.toContain('https://shop.example');
      expect(page.html).not.toContain('page--embed');
    };
    for (const order of [
      [allowed, unknown],
      [unknown, allowed],
      [allowed, unknown],
    ]) {
      for (const ask of order) await ask();
    }
    await refused('');
    await refused('?origin=https://shop.example');
    await openRefused(token, 'https://shop.example.evil.example');
    await allowed();
    await Promise.all([allowed(), unknown(), allowed(), unknown()]);
  });

  it('is kept until ten minutes before expiry; then the countdown; past the moment, the expired page', async () => {
    const expires = Date.now() + 15 * MIN;
    const { id, token } = await create(api, { expired_date: new Date(expires).toISOString() });
    const early = await open(token);
    expect(early.app).toContain('class="expiry"');
    expect(early.app).toContain('Pay by ');
    expect(early.app).not.toContain('expiry--urgent');
    await renameLineBehindTheCache(id, 'Line near expiry');

    // A few seconds before the countdown starts: still the kept page.
    setClock(expires - 10 * MIN - 3 * S);
    const stillEarly = await open(token);
    expect(lineOf(stillEarly)).toBe(ORIGINAL_LINE);
    expect(stillEarly.app).toContain('Pay by ');
    expect(Date.parse(stillEarly.state.view.serverNow)).toBeGreaterThanOrEqual(expires - 10 * MIN - 3 * S);

    setClock(expires - 9 * MIN);
    const countdown = await open(token);
    expect(lineOf(countdown)).toBe('Line near expiry');
    expect(countdown.app).toContain('class="expiry expiry--urgent"');
    expect(countdown.app).toMatch(/<span class="expiry__clock">(9:00|8:5\d)<\/span>/);
    expect(countdown.app).toContain('9 minutes left to pay');
    expect(countdown.app).not.toContain('Pay by ');
    expect(countdown.app).toContain('<form');
    expect(countdown.state.view.status).toBe('pending');

    // The countdown page is rendered each time: its clock text moves.
    await renameLineBehindTheCache(id, 'Line in the countdown');
    setClock(expires - 4 * MIN - 30 * S);
    const later = await open(token);
    expect(lineOf(later)).toBe('Line in the countdown');
    expect(later.app).toMatch(/<span class="expiry__clock">4:(30|2\d)<\/span>/);

    setClock(expires + S);
    const expired = await open(token);
    expect(expired.app).toContain('This payment link has expired');
    expect(expired.app).not.toContain('<form');
    expect(expired.app).not.toContain('expiry__clock');
    expect(expired.state.view.status).toBe('expired');
  });

  it('answers ?declined=1 and ?finished=1 as before, without taking or replacing the kept page', async () => {
    const env = await t.newEnvironment('Declined Shop');
    await updateEnvironment(db(), env.keys.environment_id, { allowedOrigins: ['https://shop.example'] });
    const { id, token } = await create(env);
    const embed = '?embed=1&origin=https://shop.example';

    expect((await open(token)).state.view.status).toBe('pending');
    expect((await open(token, embed)).state.view.status).toBe('pending');
    await renameLineBehindTheCache(id, 'Line for declined');

    // Back from the redirect gateway's provider page, refused.
    const declined = await open(token, `?declined=1&gateway=${SANDBOX_REDIRECT_ID}`);
    expect(declined.state.view.status).toBe('declined');
    expect(declined.state.view.error).toEqual({ message: 'error.declined', fields: {} });
    expect(declined.state.view.selectedGateway).toBe(SANDBOX_REDIRECT_ID);
    expect(declined.app).toContain('Payment declined');
    expect(declined.app).toContain('<form');
    expect(lineOf(declined)).toBe('Line for declined');
    const declinedEmbedded = await open(token, `${embed}&declined=1`);
    expect(declinedEmbedded.state.view.status).toBe('declined');
    expect(declinedEmbedded.frameAncestors).toBe('https://shop.example');
    // finished=1 on a pending transaction: nothing finished.
    const notFinished = await open(token, `${embed}&finished=1`);
    expect(notFinished.state.view.status).toBe('pending');
    expect(notFinished.state.view.embed?.justFinished).toBe(false);
    expect(lineOf(notFinished)).toBe('Line for declined');

    // The plain pages are still the kept ones, and not declined.
    for (const query of ['', embed]) {
      const page = await open(token, query);
      expect(page.state.view.status).toBe('pending');
      expect(page.state.view.error).toBeNull();
      expect(page.app).not.toContain('Payment declined');
      expect(lineOf(page)).toBe(ORIGINAL_LINE);
    }
    // Answered twice, the declined page is rendered twice (never kept).
    await renameLineBehindTheCache(id, 'Line for declined, again');
    expect(lineOf(await open(token, '?declined=1'))).toBe('Line for declined, again');

    expect(await payToken(t.url, token)).toBe(200);
    const finished = await open(token, `${embed}&finished=1`);
    expect(finished.state.view.status).toBe('paid');
    expect(finished.state.view.embed).toMatchObject({ parentOrigin: 'https://shop.example', justFinished: true });
    const plainEmbedded = await open(token, embed);
    expect(plainEmbedded.state.view.embed?.justFinished).toBe(false);
    // Not embedded, finished=1 means nothing; declined=1 on a paid transaction neither.
    expect((await open(token, '?finished=1')).state.view.embed).toBeNull();
    const paidDeclined = await open(token, '?declined=1');
    expect(paidDeclined.state.view.status).toBe('paid');
    expect(paidDeclined.state.view.error).toBeNull();
    expect(paidDeclined.app).toContain('Payment complete');
  });

  it('answers an unknown token with the 404 page, and a wrong-shaped one without reading anything', async () => {
    for (const token of ['A'.repeat(32), 'short', 'has.dot.in.it.1234567890']) {
      const res = await fetch(`${t.url}/pay/${token}/`, { headers: { 'accept-language': 'fr' } });
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain('Paiement introuvable');
      expect(html).not.toContain('<script');
    }
    // The language the customer picked wins here too, as on every other state of the page.
    const picked = await fetch(`${t.url}/pay/${'A'.repeat(32)}/?lang=es`, { headers: { 'accept-language': 'fr' } });
    expect(picked.status).toBe(404);
    expect(await picked.text()).toMatch(/<html lang="es"/);
  });
});
