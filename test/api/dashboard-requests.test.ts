import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, member } from './dashboard';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type Reply, type TestService, testClock, transactionBody } from './harness';

// The API's request log over real HTTP: every authenticated /v1/ request of an environment
// is recorded once its answer is sent (method, path without its query string, status, the
// key's public half, the request id the answer gave, idempotency key or not, duration),
// never its secret, its query or its body; a request without a valid key is not; a 429 of
// a known key is. The dashboard's Requests page shows the environment's own rows only,
// newest first, filtered (status class or code, method, path, request id, days) through a
// GET form, a page at a time, and the header's search finds a request by its id; the retention job deletes rows after REQUEST_LOG_RETENTION_DAYS.

const DAY = 24 * 60 * 60_000;
/** The request ids of the rows the page shows, in order. */
const shownIds = (html: string) => [...html.matchAll(/data-request="([0-9a-f-]{36})"/g)].map((m) => m[1]!);
const isoDay = (at: Date) => at.toISOString().slice(0, 10);

describe.each(ENGINES)('the API request log on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let other: Client;
  let viewer: Browser;
  let stranger: Browser;

  beforeAll(async () => {
    // A database of its own: the retention test deletes every old row it finds.
    t = await startIsolatedService(engine, { now: clock.now, env: { REQUEST_LOG_RETENTION_DAYS: '30' } });
    shop = await t.newEnvironment('Logged shop');
    other = await t.newEnvironment('Other shop');
    viewer = (await member(t, shop, 'viewer')).browser;
    stranger = (await member(t, other, 'owner')).browser;
  });
  afterAll(() => t?.close());

  const db = () => t.service.deps.database.db;
  const rows = async (environmentId = shop.keys.environment_id) => {
    await t.service.requestLog.flush();
    return db().selectFrom('api_requests').selectAll().where('environment_id', '=', environmentId).orderBy('created_at').orderBy('id').execute();
  };
  const byRequestId = async (id: string) => (await rows()).find((r) => r.request_id === id);

  it('records a request with its fields, without the query string, the secret or the body', async () => {
    const email = 'someone.private@shop.example';
    const listed = await shop.get(`/transaction/?order_id=${encodeURIComponent(email)}`);
    expect(listed.status).toBe(200);
    const created = await shop.post('/transaction/', transactionBody({ order_id: 'log-order-1' }), { 'idempotency-key': 'log-key-1' });
    expect(created.status).toBe(201);
    const missing = await shop.get('/transaction/00000000-0000-7000-8000-000000000000/');
    expect(missing.status).toBe(404);

    const list = await byRequestId(listed.headers.get('x-request-id')!);
    expect(list).toMatchObject({ method: 'GET', path: '/v1/transaction/', status: 200, public_key: shop.keys.public_key, idempotency_key: 0 });
    expect(list!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(list!.created_at)).toBeLessThanOrEqual(clock.now().getTime());
    expect(await byRequestId(created.headers.get('x-request-id')!)).toMatchObject({ method: 'POST', path: '/v1/transaction/', status: 201, idempotency_key: 1 });
    // The id a problem names is the row's.
    expect(await byRequestId(missing.body.request_id)).toMatchObject({ method: 'GET', path: '/v1/transaction/00000000-0000-7000-8000-000000000000/', status: 404 });

    const stored = JSON.stringify(await rows());
    expect(stored).not.toContain(shop.keys.secret_key);
    expect(stored).not.toContain('someone.private');
    expect(stored).not.toContain('log-order-1');
    expect(stored).not.toContain('log-key-1');
  });

  it('leaves out requests without a valid key, and records a known key refused by its rate limit', async () => {
    const before = (await rows()).length;
    const wrong = await shop.request('GET', '/transaction/', { auth: `AppKeys ${shop.keys.public_key}:sk_test_FAKEnotTheSecret` });
    expect(wrong.status).toBe(401);
    expect((await shop.request('GET', '/transaction/', { auth: null })).status).toBe(401);
    expect(await rows()).toHaveLength(before);
    expect(await db().selectFrom('api_requests').select('id').where('request_id', '=', wrong.headers.get('x-request-id')!).execute()).toEqual([]);

    const limited = await t.newEnvironment('Limited shop');
    await db().updateTable('environments').set({ rate_limit: 1 }).where('id', '=', limited.keys.environment_id).execute();
    // The key checks see the new limit within KEY_CHECKS_FRESH_MS: ask until one is refused.
    let refused: Reply | undefined;
    await expect.poll(async () => (refused = await limited.get('/transaction/')).status, { timeout: 10_000 }).toBe(429);
    expect((await rows(limited.keys.environment_id)).find((r) => r.request_id === refused!.body.request_id)).toMatchObject({ status: 429, public_key: limited.keys.public_key });
  });

  it('shows the environment its own requests, newest first, with the status in words, and no other environment’s', async () => {
    const ours = await shop.get('/transaction/?page=1');
    const theirs = await other.get('/transaction/');
    await t.service.requestLog.flush();

    const page = await viewer.get('/dashboard/requests/');
    expect(page.status).toBe(200);
    const shown = shownIds(page.text);
    expect(shown[0]).toBe(ours.headers.get('x-request-id'));
    expect(shown).toEqual((await rows()).map((r) => r.request_id).reverse());
    expect(shown).not.toContain(theirs.headers.get('x-request-id'));
    expect(page.text).not.toContain(other.keys.public_key);
    expect(page.text).toContain(shop.keys.public_key);
    expect(page.text).not.toContain(shop.keys.secret_key);
    expect(page.text).toMatch(/<span class="http" data-class="4">404<span class="visually-hidden"> client error<\/span><\/span>/);
    expect(page.text).toContain('href="/dashboard/requests/" aria-current="page"');
    expect(page.text).toContain('kept 30 days');

    const theirPage = await stranger.get('/dashboard/requests/');
    expect(shownIds(theirPage.text)).toEqual([theirs.headers.get('x-request-id')]);
    // The header's search goes to a request by its id; another environment's is not found.
    const found = await viewer.get(`/dashboard/search/?q=${ours.headers.get('x-request-id')!.toUpperCase()}`);
    expect(found.status).toBe(303);
    expect(found.location).toBe(`/dashboard/requests/?request_id=${ours.headers.get('x-request-id')}`);
    const elsewhere = await stranger.get(`/dashboard/search/?q=${ours.headers.get('x-request-id')}`);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).not.toContain('/dashboard/requests/?request_id=');
    // Another environment's row as the cursor starts from the newest of one's own.
    const ownFirst = await stranger.get(`/dashboard/requests/?before=${(await rows())[0]!.id}`);
    expect(shownIds(ownFirst.text)).toEqual([theirs.headers.get('x-request-id')]);
  });

  it('filters by status class or code, method, path, request id and days, through the query string', async () => {
    const created = await shop.post('/transaction/', transactionBody());
    await shop.get(`/transaction/${created.body.id}/`);
    const all = (await rows()).map((r) => r.request_id);
    const ids = async (query: string) => shownIds((await viewer.get(`/dashboard/requests/?${query}`)).text);
    const where = async (keep: (r: Awaited<ReturnType<typeof rows>>[number]) => boolean) => (await rows()).filter(keep).map((r) => r.request_id).reverse();

    expect(await ids('status=4xx')).toEqual(await where((r) => r.status >= 400 && r.status < 500));
    expect(await ids('status=4XX')).toEqual(await where((r) => r.status >= 400 && r.status < 500));
    expect(await ids('status=201')).toEqual(await where((r) => r.status === 201));
    expect(await ids('status=2xx&method=POST')).toEqual(await where((r) => r.status < 300 && r.method === 'POST'));
    expect(await ids(`path=${created.body.id.slice(0, 13).toUpperCase()}`)).toEqual(await where((r) => r.path.includes(created.body.id.slice(0, 13))));
    // A LIKE's wildcards are only text.
    expect(await ids('path=%25')).toEqual([]);
    expect(await ids(`request_id=${all[0]!.toUpperCase()}`)).toEqual([all[0]]);
    const today = clock.now();
    expect(await ids(`from=${isoDay(new Date(today.getTime() - 2 * DAY))}&to=${isoDay(new Date(today.getTime() + 2 * DAY))}`)).toHaveLength(Math.min(all.length, 50));
    expect(await ids(`from=${isoDay(new Date(today.getTime() + 2 * DAY))}`)).toEqual([]);

    // A value that means nothing is left out and named; the others still apply.
    const odd = await viewer.get('/dashboard/requests/?status=45&method=POST');
    expect(odd.text).toContain('Not understood, so not applied: Status.');
    expect(shownIds(odd.text)).toEqual(await where((r) => r.method === 'POST'));
    expect((await viewer.get('/dashboard/requests/?method=GET')).text).toContain('<option value="GET" selected>GET</option>');
  });

  it('pages from the last row shown, the filters kept, in every language', async () => {
    for (let i = 0; i < 55; i++) await shop.get(`/transaction/?page_size=${i + 1}`);
    await t.service.requestLog.flush();
    const first = await viewer.get('/dashboard/requests/?method=GET');
    const shown = shownIds(first.text);
    expect(shown).toHaveLength(50);
    const older = /<a href="(\/dashboard\/requests\/\?method=GET&amp;before=[0-9a-f-]{36})">Older requests<\/a>/.exec(first.text);
    expect(older).not.toBeNull();
    const second = await viewer.get(older![1]!.replace(/&amp;/g, '&'));
    const next = shownIds(second.text);
    expect(next.length).toBeGreaterThan(0);
    expect(next.some((id) => shown.includes(id))).toBe(false);
    expect([...shown, ...next]).toEqual((await rows()).filter((r) => r.method === 'GET').map((r) => r.request_id).reverse().slice(0, shown.length + next.length));
    expect(second.text).toContain('<a href="/dashboard/requests/?method=GET">Newest requests</a>');

    for (const [language, title] of [['es', 'Solicitudes a la API'], ['fr', 'Requêtes à l’API'], ['au', 'API requests']] as const) {
      const page = await viewer.get('/dashboard/requests/', { 'accept-language': language === 'au' ? 'en-AU' : language });
      expect(page.text, language).toContain(`<h1>${title}</h1>`);
    }
  });

  it('deletes requests after REQUEST_LOG_RETENTION_DAYS with the retention job, and keeps the newer ones', async () => {
    const old = (await rows()).length;
    expect(old).toBeGreaterThan(0);
    clock.advance(31 * DAY);
    const recent = await shop.get('/transaction/');
    await t.service.requestLog.flush();
    await t.service.jobs.runOnce('retention');
    expect((await rows()).map((r) => r.request_id)).toEqual([recent.headers.get('x-request-id')]);
    expect(await rows(other.keys.environment_id)).toEqual([]);
  });
});
