import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../server/api/index';
import { setPricing } from '../../server/store/balance';
import { uuidv7 } from '../../server/domain/ids';
import { insertFile } from '../../server/store/payout-files';
import { clientBody, documentBody, IBANS } from './documents';
import { type Client, describeWithSqlite, ENGINES, problemPaths, type TestService, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { createWallet, entriesOf, fund } from './ledger';
import { cancelToken, paidTransaction, payToken, priced, SANDBOX_CARD } from './pay';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

// One security check for every route that takes an id, run from a route table in the
// manner of Unkey's route security suite: another environment's keys get a 404 (never a
// 403 that confirms the object exists) and change nothing; a malformed id is a 404; no
// key is a 401. The table is checked against apiRoutes(), so a new route with an id
// cannot be added without being listed here.

/** An object as created; objects nested under a client name it. */
interface Made {
  id: string;
  client?: string;
  /** A funded wallet's first entry. */
  entry_id?: string;
}

interface Group {
  /** Creates one object in the caller's environment: a POST body, or a function for objects no POST makes. */
  create: unknown;
  /** A valid PATCH (or action) body, so that only the environment can be the reason for a 404. */
  patch?: unknown;
  /** Where a nested object is read; others are at `/{group}/{id}/`. */
  at?: (o: Made) => string;
}

/** A client with one IBAN or one document. */
const nested = (kind: 'iban' | 'document', body: unknown) => async (c: Client) => {
  const client = (await c.post('/client/', clientBody())).body as Made;
  return (await c.post(`/client/${client.id}/${kind}/`, body)).body as Made;
};

const card = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'A' };

const OWNED: Record<string, Group> = {
  product: { create: { name: 'Mug', price: 12.5, currency: 'EUR' }, patch: { name: 'Stolen mug', price: 0 } },
  plan: { create: { name: 'Monthly', amount: 9.99, currency: 'EUR', interval: 'month' }, patch: { amount: 0 } },
  tax: { create: { name: 'VAT', rate: 21 }, patch: { rate: 0 } },
  shipping: { create: { name: 'Courier', price: 4.95, currency: 'EUR' }, patch: { price: 0 } },
  coupon: { create: { name: 'Ten', kind: 'percent', value: 10 }, patch: { value: 100 } },
  transaction: { create: transactionBody() },
  sale: {
    // Partly captured, so that capture, refund and void of 1 are all allowed.
    create: async (c: Client) => {
      const { sale } = await paidTransaction(c, priced('EUR', 10, { authorize: true }));
      return (await c.post(`/sale/${sale.id}/capture/`, { amount: 5 })).body;
    },
    patch: { amount: 1 },
  },
  authorization: { create: { gateway: SANDBOX_CARD, card }, patch: { amount: 1, currency: 'EUR' } },
  client: { create: clientBody(), patch: { name: 'Stolen name', enabled: false } },
  iban: {
    create: nested('iban', { iban: IBANS.ES }),
    patch: { iban: IBANS.DE, enabled: false },
    at: (o) => `/client/${o.client}/iban/${o.id}/`,
  },
  document: {
    create: nested('document', documentBody()),
    at: (o) => `/client/${o.client}/document/${o.id}/`,
  },
  wallet: {
    // Funded, so that its entry routes have an entry to name (`entry_id`).
    create: async (c: Client) => {
      const wallet = await createWallet(c);
      await fund(c, wallet, 5);
      return { ...wallet, entry_id: (await entriesOf(c, wallet.id))[0].id };
    },
    patch: { name: 'Stolen wallet', enabled: false },
  },
  transfer: {
    create: async (c: Client) => {
      const [from, to] = [await createWallet(c), await createWallet(c)];
      await fund(c, from, 5);
      return (await c.post('/transfer/', { source_wallet: from.id, destination_wallet: to.id, amount: 2 })).body;
    },
  },
  balance_transaction: {
    // A paid sale's charge, made by a round of the balance job.
    create: async (c: Client) => {
      const { sale } = await paidTransaction(c, priced('EUR', 10));
      // Rounds until it is made: the shared PostgreSQL database may hold other files' sales first.
      for (;;) {
        const [made] = (await c.get(`/balance_transaction/?sale=${sale.id}`)).body.results;
        if (made) return made;
        if ((await balanceJob()) === 0) throw new Error(`no balance transaction for sale ${sale.id}`);
      }
    },
  },
  merchant_payout: {
    // A manual payout of a paid sale's charge, available at once (no settlement delay); a
    // large one, since the disputes of the other groups take money out of the balance.
    create: async (c: Client) => {
      await noSettlementDelay(c.keys.environment_id);
      await paidTransaction(c, priced('EUR', 100_000));
      while ((await c.get('/balance/')).body.available.every((a: { amount: number }) => a.amount <= 0)) {
        if ((await balanceJob()) === 0) throw new Error('no money available to pay out');
      }
      expect((await c.patch('/payout_settings/', { iban: IBANS.ES, schedule: 'manual' })).status).toBe(200);
      const res = await c.post('/merchant_payout/', { currency: 'EUR' });
      expect(res.status, res.text).toBe(201);
      return res.body;
    },
  },
  subscription: { create: (c: Client) => subscriptionIn(c, 'waiting') },
  dispute: {
    // A sale paid with the sandbox bank's disputing card, disputed by a round of its job.
    create: async (c: Client) => {
      const created = await c.post('/transaction/', priced('EUR', 10));
      await payToken(c.url, created.body.token, TEST_CARDS.disputedFraudulent);
      const sale = (await c.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
      for (;;) {
        const [made] = (await c.get(`/dispute/?sale=${sale.id}`)).body.results;
        if (made) return made;
        if ((await disputeJob()) === 0) throw new Error(`no dispute for sale ${sale.id}`);
      }
    },
    patch: { uncategorized_text: 'stolen evidence' },
  },
  event: {
    create: async (c: Client) => {
      const tx = await c.post('/transaction/', transactionBody({ notify_url: 'https://shop.example/hook' }));
      await cancelToken(c.url, tx.body.token);
      return (await c.get(`/event/?object_id=${tx.body.id}`)).body.results[0];
    },
  },
  webhook_endpoint: {
    create: { url: 'https://shop.example/hooks/all', enabled_events: ['*'] },
    patch: { url: 'https://thief.example/hooks', enabled: true },
  },
  // The payout-files job writes files only for live environments under PAYOUT_PROVIDER=sepa-file:
  // here one is written straight into the store, as the job would leave it (no payouts in it).
  payout_file: { create: (c: Client) => payoutFileIn(c.keys.environment_id) },
  // Its key is checked by the Stripe test double the service is pointed at (STRIPE_API_URL).
  processor: {
    // One processor of a type per environment: the previous one goes first.
    create: async (c: Client) => {
      for (const p of (await c.get('/processor/')).body.results as Made[]) await c.delete(`/processor/${p.id}/`);
      const made = await c.post('/processor/', { type: 'stripe', secret_key: 'sk_test_isolation0001', webhook_secret: 'whsec_isolation0001', publishable_key: 'pk_test_isolation0001' });
      expect(made.status, made.text).toBe(201);
      return made.body as Made;
    },
    patch: { statement_descriptor: 'THIEF SHOP' },
  },
};

/** A subscription of its own plan and card, moved to `state` (its action routes need one each). */
async function subscriptionIn(c: Client, state: 'waiting' | 'active' | 'paused'): Promise<{ id: string }> {
  const plan = await c.post('/plan/', OWNED.plan!.create);
  const authorization = await c.post('/authorization/', OWNED.authorization!.create);
  const sub = (await c.post('/subscription/', { plan: plan.body.id, authorization: authorization.body.id })).body as { id: string };
  if (state !== 'waiting') await c.post(`/subscription/${sub.id}/start/`, undefined);
  if (state === 'paused') await c.post(`/subscription/${sub.id}/pause/`, undefined);
  return sub;
}

/** One round of the balance job of the service under test (set as it starts). */
let balanceJob: () => Promise<number> = async () => 0;
/** One round of the sandbox bank's disputes, likewise. */
let disputeJob: () => Promise<number> = async () => 0;
let noSettlementDelay: (environmentId: string) => Promise<void> = async () => undefined;
let payoutFileIn: (environmentId: string) => Promise<Made> = async () => ({ id: MISSING_FILE });
const MISSING_FILE = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0f';
const MISSING_PAYOUT = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d10';

/** Seeded read-only objects, the same in every environment: no isolation to check. */
const GLOBAL = new Set(['gateway', 'currency']);

interface IdRoute {
  method: 'GET' | 'PATCH' | 'DELETE' | 'POST';
  group: string;
  /** The path with `{id}` in it, as declared; `{clientId}` is the client of a nested object, or the client itself. */
  path: string;
  /** An action that takes the group's `patch` body. */
  withBody?: boolean;
  /** The body of a POST that creates an object under the client. */
  body?: unknown;
  /** Creates the object in the state this action needs, instead of the group's `create`. */
  create?: (c: Client) => Promise<Made>;
  /**
   * The owner's own call is a 404 about something inside the object, with this detail,
   * instead of the declared status: the object was found, what the body names was not.
   */
  ownNotFound?: string;
}

const ID_ROUTES: IdRoute[] = [
  ...['product', 'plan', 'tax', 'shipping', 'coupon'].flatMap((group) =>
    (['GET', 'PATCH', 'DELETE'] as const).map((method) => ({ method, group, path: `/${group}/{id}/` })),
  ),
  { method: 'GET', group: 'transaction', path: '/transaction/{id}/' },
  { method: 'GET', group: 'sale', path: '/sale/{id}/' },
  ...['capture', 'refund', 'void'].map((a) => ({ method: 'POST' as const, group: 'sale', path: `/sale/{id}/${a}/`, withBody: true })),
  { method: 'GET', group: 'authorization', path: '/authorization/{id}/' },
  { method: 'POST', group: 'authorization', path: '/authorization/{id}/charge/', withBody: true },
  { method: 'POST', group: 'authorization', path: '/authorization/{id}/remove/' },
  { method: 'GET', group: 'wallet', path: '/wallet/{id}/' },
  { method: 'PATCH', group: 'wallet', path: '/wallet/{id}/' },
  { method: 'GET', group: 'wallet', path: '/wallet/{id}/entry/' },
  { method: 'GET', group: 'wallet', path: '/wallet/{id}/entry/{entry_id}/' },
  { method: 'GET', group: 'transfer', path: '/transfer/{id}/' },
  { method: 'GET', group: 'balance_transaction', path: '/balance_transaction/{id}/' },
  { method: 'GET', group: 'merchant_payout', path: '/merchant_payout/{id}/' },
  { method: 'GET', group: 'payout_file', path: '/payout_file/{id}/' },
  { method: 'GET', group: 'payout_file', path: '/payout_file/{id}/xml/' },
  { method: 'POST', group: 'payout_file', path: '/payout_file/{id}/cancel/' },
  // The store's file holds no payouts: the owner's call finds the file, not the payout.
  { method: 'POST', group: 'payout_file', path: '/payout_file/{id}/mark_paid/', body: { payout: MISSING_PAYOUT, reason: 'Seen at the bank' }, ownNotFound: 'No such payout in this file' },
  { method: 'GET', group: 'subscription', path: '/subscription/{id}/' },
  { method: 'POST', group: 'subscription', path: '/subscription/{id}/start/' },
  { method: 'POST', group: 'subscription', path: '/subscription/{id}/pause/', create: (c) => subscriptionIn(c, 'active') },
  { method: 'POST', group: 'subscription', path: '/subscription/{id}/active/', create: (c) => subscriptionIn(c, 'paused') },
  { method: 'POST', group: 'subscription', path: '/subscription/{id}/stop/' },
  { method: 'GET', group: 'event', path: '/event/{id}/' },
  { method: 'POST', group: 'event', path: '/event/{id}/retry/' },
  ...(['GET', 'PATCH', 'DELETE'] as const).map((method) => ({ method, group: 'webhook_endpoint', path: '/webhook_endpoint/{id}/' })),
  { method: 'POST', group: 'webhook_endpoint', path: '/webhook_endpoint/{id}/roll_secret/' },
  ...(['GET', 'PATCH', 'DELETE'] as const).map((method) => ({ method, group: 'processor', path: '/processor/{id}/' })),
  { method: 'GET', group: 'client', path: '/client/{id}/' },
  { method: 'PATCH', group: 'client', path: '/client/{id}/' },
  { method: 'GET', group: 'client', path: '/client/{clientId}/iban/' },
  { method: 'POST', group: 'client', path: '/client/{clientId}/iban/', body: { iban: IBANS.FR } },
  { method: 'GET', group: 'client', path: '/client/{clientId}/document/' },
  { method: 'POST', group: 'client', path: '/client/{clientId}/document/', body: documentBody() },
  { method: 'GET', group: 'iban', path: '/client/{clientId}/iban/{id}/' },
  { method: 'PATCH', group: 'iban', path: '/client/{clientId}/iban/{id}/' },
  { method: 'GET', group: 'document', path: '/client/{clientId}/document/{id}/' },
  { method: 'GET', group: 'document', path: '/client/{clientId}/document/{id}/file/' },
  { method: 'GET', group: 'dispute', path: '/dispute/{id}/' },
  { method: 'POST', group: 'dispute', path: '/dispute/{id}/evidence/', withBody: true },
  { method: 'POST', group: 'dispute', path: '/dispute/{id}/submit/' },
  { method: 'POST', group: 'dispute', path: '/dispute/{id}/accept/' },
];

const NO_FEE = { percentE2: 0n, fixed: 0n };

const MALFORMED = ['not-a-uuid', '123', '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0', '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e0', "1' OR '1'='1", '%00', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'];
/** Sent as they are: broken percent-encoding cannot name an object either. */
const MALFORMED_RAW = ['%zz', '%E0%A4%A', '%', '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0%'];
const MISSING = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';

const groupOf = (path: string) => path.split('/')[1]!;

describeWithSqlite('the route table', () => {
  it('lists every route of apiRoutes() that takes an id of an environment-owned object', () => {
    const declared = apiRoutes()
      .filter((r) => r.path.includes('{') && !GLOBAL.has(groupOf(r.path)))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`)
      .sort();
    const listed = ID_ROUTES.map((r) => `${r.method} ${r.path}`).sort();
    expect(listed).toEqual(declared);
    for (const r of ID_ROUTES) expect(OWNED[r.group], r.group).toBeDefined();
  });
});

describe.each(ENGINES)('environment isolation on %s', (engine) => {
  let t: TestService;
  let stripe: StripeDouble;
  let owner: Client;
  let stranger: Client;
  beforeAll(async () => {
    // Connecting a processor checks its key at Stripe: the test double answers.
    stripe = await startStripeDouble();
    t = await startIsolatedService(engine, { env: { SANDBOX_DISPUTE_DELAY_MS: '0', STRIPE_API_URL: stripe.url } });
    balanceJob = () => t.service.jobs.runOnce('balance');
    disputeJob = () => t.service.jobs.runOnce('sandbox-disputes');
    noSettlementDelay = (id) => setPricing(t.service.deps.database.db, id, { charge: NO_FEE, refund: NO_FEE, settlementDelayDays: 0 }, new Date());
    payoutFileIn = async (environmentId) => {
      const id = uuidv7();
      const at = new Date().toISOString();
      const file = { id, environment_id: environmentId, created_at: at, updated_at: at, message_id: id.replace(/-/g, ''), version: 'pain.001.001.09' as const, state: 'written' as const };
      const rest = { currency: 'EUR', debtor_iban: IBANS.DE, payout_count: 0, control_sum: 0, execution_date: at.slice(0, 10), xml: '<Document/>', download_count: 0, downloaded_at: null, cancelled_at: null };
      await t.service.deps.database.db.transaction().execute((trx) => insertFile(trx, { ...file, ...rest }, []));
      return { id };
    };
    owner = await t.newEnvironment('Owner');
    stranger = await t.newEnvironment('Stranger');
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const create = async (group: string) => {
    const { create: made } = OWNED[group]!;
    if (typeof made === 'function') return (await made(owner)) as Made;
    const res = await owner.post(`/${group}/`, made);
    expect(res.status, res.text).toBe(201);
    return res.body as Made;
  };
  // A wallet's entry is named by the wallet's id (the one under test) and its own.
  let entryId = MISSING;
  /** `id` stands where the object's own id goes; a nested object keeps its client's. */
  const call = (c: Client, route: IdRoute, id: string, auth?: string | null, client?: string) =>
    c.request(route.method, route.path.replace('{id}', id).replace('{clientId}', route.group === 'client' ? id : client!).replace('{entry_id}', entryId), {
      body: route.body ?? (route.method === 'PATCH' || route.withBody ? OWNED[route.group]!.patch : undefined),
      auth,
    });
  const expectNotFound = (res: Awaited<ReturnType<typeof call>>) => {
    expect(res.status, res.text).toBe(404);
    problemPaths(res);
    expect(res.body.type).toBe('urn:problem:not-found');
  };

  it.each(ID_ROUTES)('$method $path', async (route) => {
    const original = route.create ? await route.create(owner) : await create(route.group);
    const client = original.client;
    entryId = original.entry_id ?? MISSING;
    // Actions change the object itself: it is read at its own path.
    const path = OWNED[route.group]!.at?.(original) ?? `/${route.group}/${original.id}/`;
    // What a POST under a client would add to.
    const collection = route.body && route.path.includes('{clientId}') ? route.path.replace('{clientId}', original.id) : undefined;
    const snapshot = (await owner.get(path)).body;
    const collected = collection && (await owner.count(collection));

    // Another environment's keys: 404, exactly as for an id that does not exist.
    const foreign = await call(stranger, route, original.id, undefined, client);
    expectNotFound(foreign);
    const missing = await call(stranger, route, MISSING, undefined, client);
    expectNotFound(missing);
    expect({ ...foreign.body, detail: '', request_id: '' }).toEqual({ ...missing.body, detail: '', request_id: '' });
    expect(foreign.body.detail).toBe(missing.body.detail);

    // Malformed ids, with the owner's keys: 404, never a 400 or 500.
    for (const bad of MALFORMED) {
      const res = await call(owner, route, encodeURIComponent(bad), undefined, client);
      expect(res.status, `${bad}: ${res.text}`).toBe(404);
      problemPaths(res);
    }
    for (const bad of MALFORMED_RAW) {
      const res = await call(owner, route, bad, undefined, client);
      expect(res.status, `${bad}: ${res.text}`).toBe(404);
      problemPaths(res);
    }
    expectNotFound(await call(owner, route, MISSING, undefined, client));

    // No key, or a key pair that does not fit: 401, whatever the id.
    for (const auth of [null, `AppKeys ${stranger.keys.public_key}:${owner.keys.secret_key}`]) {
      const res = await call(owner, route, original.id, auth, client);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^AppKeys/);
    }

    // Nothing above changed the object.
    const after = await owner.get(path);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(snapshot);
    if (collection) expect(await owner.count(collection)).toBe(collected);

    // And the owner can do what the others could not: the 404s came from the environment.
    const own = await call(owner, route, original.id, undefined, client);
    const declared = apiRoutes().find((r) => r.method === route.method.toLowerCase() && r.path === route.path)!;
    expect(own.status, own.text).toBe(route.ownNotFound ? 404 : declared.status);
    if (route.ownNotFound) expect(own.body.detail).toBe(route.ownNotFound);
    if (route.method === 'PATCH') expect(own.body).toMatchObject(OWNED[route.group]!.patch as object);
  });

  it.each(Object.keys(OWNED).filter((g) => !OWNED[g]!.at))('GET /%s/ lists only the caller environment', async (group) => {
    const mine = await create(group);
    const theirs = await stranger.get(`/${group}/?page_size=100`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.results.map((r: { id: string }) => r.id)).not.toContain(mine.id);
    const own = await owner.get(`/${group}/?page_size=100`);
    expect(own.body.results.map((r: { id: string }) => r.id)).toContain(mine.id);
  });

  it.each([...GLOBAL])('GET /%s/{id}/ is the same seeded object for everyone, 404 when malformed, 401 without a key', async (group) => {
    const list = await owner.get(`/${group}/`);
    expect(list.status).toBe(200);
    expect(list.body.count).toBeGreaterThan(0);
    const id = list.body.results[0].id as string;
    const a = await owner.get(`/${group}/${id}/`);
    const b = await stranger.get(`/${group}/${id}/`);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    for (const bad of MALFORMED) expect((await owner.get(`/${group}/${encodeURIComponent(bad)}/`)).status).toBe(404);
    for (const bad of MALFORMED_RAW) expect((await owner.get(`/${group}/${bad}/`)).status).toBe(404);
    expect((await owner.get(`/${group}/${MISSING}/`)).status).toBe(404);
    expect((await owner.request('GET', `/${group}/${id}/`, { auth: null })).status).toBe(401);
  });
});
