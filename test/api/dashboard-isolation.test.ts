import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEndpoint } from '../../server/store/webhook-endpoints';
import { GROUPS, type GroupName } from '../../server/dashboard/catalogue-form';
import { dashboardRouter } from '../../server/dashboard/routes';
import { listApiKeys } from '../../server/store/api-keys';
import { auditOf } from '../../server/store/audit';
import { getBrand } from '../../server/store/branding';
import { findEnvironment } from '../../server/store/environments';
import { membersOf } from '../../server/store/users';
import { type Browser, member } from './dashboard';
import { clientBody, documentBody, FILES, IBANS } from './documents';
import { type Client, ENGINES, type TestService, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { cancelToken, paidTransaction, payToken, priced, SANDBOX_CARD } from './pay';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { JOB_NAMES } from '../../server/jobs';
import { balanceOf, setPricing } from '../../server/store/balance';
import { listMerchantPayouts } from '../../server/store/merchant-payouts';
import { listProcessors } from '../../server/store/processors';
import { getFile, insertFile } from '../../server/store/payout-files';
import { inTransaction } from '../../server/store/db';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

const NO_FEE = { percentE2: 0n, fixed: 0n };

// The dashboard's part of the isolation suite (isolation.test.ts has the API's): every
// dashboard route, from a route table checked against the router itself, called by an
// owner of another environment (the highest role, so only the environment can refuse).
// A route that names an object answers 404 for this environment's id exactly as for an id
// that does not exist, and changes nothing; every other page shows nothing of this
// environment; the owner here gets what the stranger did not.

const MISSING = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';

/** What this environment holds, for the routes to name and for the pages to not show. */
interface Shop {
  transaction: string;
  /** A cancelled transaction: its receipt is refused (not paid) for the owner here, whatever the time. */
  cancelled: string;
  orderId: string;
  sale: string;
  event: string;
  key: string;
  publicKey: string;
  ownerEmail: string;
  /** One object of each catalogue group. */
  catalogue: Record<GroupName, string>;
  client: string;
  /** Two pending documents: one to accept, one to reject. */
  documents: [string, string];
  iban: string;
  /** Active: paused, resumed, then stopped by the owner here. */
  subscription: string;
  authorization: string;
  wallet: string;
  /** A webhook endpoint: edited, disabled, its secret rolled, then deleted by the owner here. */
  endpoint: string;
  /** A failed attempt to that endpoint: its delivery sent again by the owner here. */
  attempt: string;
  /** A payout of the balance to the merchant's bank. */
  payout: string;
  /** Two disputes awaiting a response: evidence saved and submitted on the first, the second accepted. */
  disputes: [string, string];
  /** A connected Stripe account: its keys replaced, then disconnected by the owner here. */
  processor: string;
  /** A payout file holding the payout: downloaded, then cancelled by the owner here. */
  payoutFile: string;
  /** The owner's saved view of the payments list: deleted by the owner here. */
  view: string;
}

interface IdRoute {
  kind: 'id';
  method: 'GET' | 'POST';
  path: string;
  /** The id it names. */
  id: (s: Shop) => string;
  /** The form it posts (besides the CSRF token). */
  form?: Record<string, string>;
  /** A form naming this environment's objects too (read once they exist). */
  formOf?: (s: Shop) => Record<string, string>;
  /** Posted as multipart/form-data with this file (field name, its type, then the file). */
  file?: [string, string, { name: string; bytes: Buffer }];
  /** What the owner here gets for the same request. */
  ownStatus: number;
}
interface PageRoute {
  kind: 'page';
  path: string;
  /** Asked with this query string (a file whose rows are the environment's). */
  query?: string;
}
/** Posts with no id: each acts in the poster's own environment or on the poster alone; tested one by one below. */
interface OwnPost {
  kind: 'own';
  path: string;
}
/** Before a session there is no environment: sign-in, invites (a token is the way into its own environment), the stylesheet. */
interface Public {
  kind: 'public';
  method: 'GET' | 'POST';
  path: string;
}
/** A link from an owners' email, for its own environment's owner only: tested in dashboard-payout-account.test.ts. */
interface EmailLink {
  kind: 'email';
  method: 'GET' | 'POST';
  path: string;
}
type Route = IdRoute | PageRoute | OwnPost | Public | EmailLink;

const sale = (action: string): IdRoute[] => [
  // The first step (confirmation) and the second (with its idempotency key).
  { kind: 'id', method: 'POST', path: `/sales/:id/${action}/`, id: (s) => s.sale, form: { amount: '1.00' }, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: `/sales/:id/${action}/`, id: (s) => s.sale, form: { amount: '1.00', idempotency_key: action.padEnd(43, 'k') }, ownStatus: 303 },
];

/** A catalogue group's pages and posts: its list, its form, one object, its edit and its enable / disable. */
const catalogue = (group: GroupName): Route[] => [
  { kind: 'page', path: `/catalogue/${group}/` },
  { kind: 'page', path: `/catalogue/${group}/new/` },
  { kind: 'own', path: `/catalogue/${group}/` },
  { kind: 'id', method: 'GET', path: `/catalogue/${group}/:id/`, id: (s) => s.catalogue[group], ownStatus: 200 },
  { kind: 'id', method: 'POST', path: `/catalogue/${group}/:id/`, id: (s) => s.catalogue[group], form: { name: 'Renamed here' }, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: `/catalogue/${group}/:id/enabled/`, id: (s) => s.catalogue[group], form: { enabled: 'false' }, ownStatus: 303 },
];

/** A create request for each catalogue group, through the API. */
const CATALOGUE_BODIES: Record<GroupName, Record<string, unknown>> = {
  product: { name: 'Isolated mug', price: 12, currency: 'EUR' },
  plan: { name: 'Isolated club', amount: 9.5, currency: 'EUR', interval: 'month' },
  tax: { name: 'Isolated VAT', rate: 21 },
  shipping: { name: 'Isolated courier', price: 4.95, currency: 'EUR' },
  coupon: { name: 'Isolated welcome', kind: 'percent', value: 10 },
};

const ROUTES: Route[] = [
  { kind: 'page', path: '/catalogue/' },
  { kind: 'page', path: '/clients/' },
  { kind: 'page', path: '/customers/' },
  { kind: 'page', path: '/customers/', query: '?all=1' },
  { kind: 'id', method: 'GET', path: '/customers/clients/:id/', id: (s) => s.client, ownStatus: 200 },
  { kind: 'id', method: 'GET', path: '/customers/payers/:id/', id: (s) => s.transaction, ownStatus: 200 },
  { kind: 'page', path: '/subscriptions/' },
  { kind: 'id', method: 'POST', path: '/subscriptions/:id/pause/', id: (s) => s.subscription, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/subscriptions/:id/resume/', id: (s) => s.subscription, ownStatus: 303 },
  // The confirmation, then the confirmed stop.
  { kind: 'id', method: 'POST', path: '/subscriptions/:id/stop/', id: (s) => s.subscription, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/subscriptions/:id/stop/', id: (s) => s.subscription, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'page', path: '/authorizations/' },
  { kind: 'page', path: '/wallets/' },
  { kind: 'id', method: 'GET', path: '/wallets/:id/', id: (s) => s.wallet, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/authorizations/:id/remove/', id: (s) => s.authorization, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/authorizations/:id/remove/', id: (s) => s.authorization, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'id', method: 'GET', path: '/clients/:id/', id: (s) => s.client, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/documents/:id/accept/', id: (s) => s.documents[0], ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/documents/:id/reject/', id: (s) => s.documents[1], form: { reason: 'Blurred' }, ownStatus: 303 },
  ...GROUPS.flatMap(catalogue),
  { kind: 'public', method: 'GET', path: '/assets/dashboard.css' },
  { kind: 'public', method: 'GET', path: '/sign-in/' },
  { kind: 'public', method: 'POST', path: '/sign-in/' },
  { kind: 'public', method: 'GET', path: '/invite/:token/' },
  { kind: 'public', method: 'POST', path: '/invite/:token/' },
  // The code step of a sign-in: its challenge cookie names the user, no session yet.
  { kind: 'public', method: 'GET', path: '/sign-in/code/' },
  { kind: 'public', method: 'POST', path: '/sign-in/code/' },
  // "Forgot your password?": the link comes by email; no session yet.
  { kind: 'public', method: 'GET', path: '/sign-in/forgot/' },
  { kind: 'public', method: 'POST', path: '/sign-in/forgot/' },
  { kind: 'public', method: 'GET', path: '/sign-in/reset/' },
  { kind: 'public', method: 'POST', path: '/sign-in/reset/' },
  { kind: 'page', path: '/' },
  { kind: 'page', path: '/team/' },
  { kind: 'page', path: '/audit/' },
  { kind: 'page', path: '/keys/' },
  { kind: 'page', path: '/transactions/' },
  { kind: 'page', path: '/disputes/' },
  { kind: 'id', method: 'GET', path: '/disputes/:id/', id: (s) => s.disputes[0], ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/disputes/:id/evidence/', id: (s) => s.disputes[0], form: { product_description: 'Isolated evidence' }, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/disputes/:id/files/', id: (s) => s.disputes[0], file: ['file', 'application/pdf', FILES['application/pdf']], ownStatus: 303 },
  // Each answer: the confirmation, then the confirmed answer.
  { kind: 'id', method: 'POST', path: '/disputes/:id/submit/', id: (s) => s.disputes[0], ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/disputes/:id/submit/', id: (s) => s.disputes[0], form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/disputes/:id/accept/', id: (s) => s.disputes[1], ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/disputes/:id/accept/', id: (s) => s.disputes[1], form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'page', path: '/webhooks/' },
  { kind: 'page', path: '/account/security/' },
  { kind: 'page', path: '/account/notifications/' },
  { kind: 'page', path: '/export/' },
  { kind: 'page', path: '/settings/' },
  // The payment page's preview shows the viewer's own brand and logo only.
  { kind: 'page', path: '/settings/preview/' },
  { kind: 'page', path: '/settings/preview/', query: '?display_name=Preview&brand_color=%23ffdd00&accent_color=%23123456' },
  { kind: 'page', path: '/settings/preview/brand.css', query: '?brand_color=%23ffdd00' },
  ...['transactions', 'sales', 'refunds', 'payouts', 'wallet_entries'].map((kind): PageRoute => ({ kind: 'page', path: '/export/csv', query: `?kind=${kind}&from=2000-01-01&to=2100-01-01` })),
  { kind: 'own', path: '/sign-out/' },
  { kind: 'own', path: '/sign-out-everywhere/' },
  { kind: 'own', path: '/environment/' },
  { kind: 'own', path: '/team/invite/' },
  { kind: 'own', path: '/keys/' },
  { kind: 'own', path: '/account/security/totp/' },
  { kind: 'own', path: '/account/security/totp/confirm/' },
  { kind: 'own', path: '/account/security/totp/disable/' },
  { kind: 'own', path: '/account/security/password/' },
  { kind: 'own', path: '/account/notifications/' },
  { kind: 'own', path: '/settings/' },
  { kind: 'id', method: 'GET', path: '/transactions/:id/', id: (s) => s.transaction, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/transactions/:id/receipt/', id: (s) => s.cancelled, ownStatus: 409 },
  { kind: 'id', method: 'POST', path: '/transactions/:id/notes/', id: (s) => s.transaction, ownStatus: 303, form: { note: 'Isolated note' } },
  // The payments list's saved views: one saved, one deleted.
  { kind: 'own', path: '/transactions/views/' },
  { kind: 'id', method: 'POST', path: '/transactions/views/:id/delete/', id: (s) => s.view, ownStatus: 303 },
  ...sale('capture'),
  ...sale('refund'),
  // The refund's own page (amount and reason), before its confirmation.
  { kind: 'id', method: 'GET', path: '/sales/:id/refund/', id: (s) => s.sale, ownStatus: 200 },
  ...sale('void'),
  { kind: 'id', method: 'GET', path: '/webhooks/:id/', id: (s) => s.event, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/webhooks/:id/resend/', id: (s) => s.event, ownStatus: 303 },
  { kind: 'page', path: '/events/' },
  { kind: 'page', path: '/requests/' },
  { kind: 'page', path: '/events/', query: '?type=transaction.cancelled' },
  { kind: 'id', method: 'GET', path: '/events/:id/', id: (s) => s.event, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/events/:id/retry/', id: (s) => s.event, form: { destination: 'notify_url' }, ownStatus: 303 },
  { kind: 'page', path: '/webhook-endpoints/' },
  { kind: 'page', path: '/webhook-endpoints/new/' },
  { kind: 'own', path: '/webhook-endpoints/' },
  { kind: 'id', method: 'GET', path: '/webhook-endpoints/:id/', id: (s) => s.endpoint, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/', id: (s) => s.endpoint, form: { url: 'https://isolated-hooks.shop.example/renamed', events: '*' }, ownStatus: 303 },
  // The endpoint is the id named (`:attempt` is always this environment's attempt of it).
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/attempts/:attempt/retry/', id: (s) => s.endpoint, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/enabled/', id: (s) => s.endpoint, form: { enabled: 'false' }, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/roll/', id: (s) => s.endpoint, form: { overlap_hours: '24' }, ownStatus: 200 },
  // The confirmation, then (last of the endpoint's) the confirmed delete.
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/delete/', id: (s) => s.endpoint, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/webhook-endpoints/:id/delete/', id: (s) => s.endpoint, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'page', path: '/processors/' },
  { kind: 'page', path: '/live-readiness/' },
  { kind: 'own', path: '/processors/' },
  { kind: 'id', method: 'GET', path: '/processors/:id/', id: (s) => s.processor, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/processors/:id/', id: (s) => s.processor, form: { webhook_secret: 'whsec_isolatedrotated0001' }, ownStatus: 303 },
  // The confirmation, then (last of the processor's) the confirmed disconnect.
  { kind: 'id', method: 'POST', path: '/processors/:id/delete/', id: (s) => s.processor, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/processors/:id/delete/', id: (s) => s.processor, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'id', method: 'POST', path: '/keys/:id/roll/', id: (s) => s.key, form: { overlap_hours: '24' }, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/keys/:id/revoke/', id: (s) => s.key, ownStatus: 200 },
  { kind: 'id', method: 'GET', path: '/keys/:id/revealed/', id: (s) => s.key, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/keys/:id/end-older/', id: (s) => s.key, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'id', method: 'GET', path: '/subscriptions/:id/', id: (s) => s.subscription, ownStatus: 200 },
  { kind: 'page', path: '/payouts/' },
  { kind: 'page', path: '/balance/' },
  { kind: 'page', path: '/balance/', query: '?type=payout&currency=EUR&from=2000-01-01&to=2100-01-01' },
  { kind: 'page', path: '/export/csv', query: '?kind=balance_transactions&type=charge&currency=EUR&from=2000-01-01&to=2100-01-01' },
  { kind: 'own', path: '/balance/pay-out/' },
  { kind: 'own', path: '/balance/bank-account/' },
  { kind: 'email', method: 'GET', path: '/balance/bank-account/confirm/:token/' },
  { kind: 'email', method: 'POST', path: '/balance/bank-account/confirm/:token/' },
  { kind: 'id', method: 'GET', path: '/payouts/:id/', id: (s) => s.payout, ownStatus: 200 },
  { kind: 'id', method: 'GET', path: '/payouts/:id/settlement.csv', id: (s) => s.payout, ownStatus: 200 },
  { kind: 'page', path: '/export/csv', query: '?kind=merchant_payouts&from=2000-01-01&to=2100-01-01' },
  { kind: 'page', path: '/payout-files/' },
  { kind: 'own', path: '/payout-files/statement/' },
  { kind: 'id', method: 'GET', path: '/payout-files/:id/', id: (s) => s.payoutFile, ownStatus: 200 },
  // Its payout is pending (the sandbox's payout job has not run): not in transit, refused.
  { kind: 'id', method: 'POST', path: '/payout-files/:id/paid/', id: (s) => s.payoutFile, formOf: (s) => ({ payout: s.payout, reason: 'Seen at the bank' }), ownStatus: 409 },
  // The first download sends the payout (in transit); the confirmed cancel puts it back to pending.
  { kind: 'id', method: 'POST', path: '/payout-files/:id/xml/', id: (s) => s.payoutFile, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/payout-files/:id/cancel/', id: (s) => s.payoutFile, ownStatus: 200 },
  { kind: 'id', method: 'POST', path: '/payout-files/:id/cancel/', id: (s) => s.payoutFile, form: { confirm: 'yes' }, ownStatus: 303 },
  { kind: 'own', path: '/settings/logo/remove/' },
  { kind: 'own', path: '/settings/time-zone/' },
  // Last: the owner's confirmation revokes the key.
  { kind: 'id', method: 'POST', path: '/keys/:id/revoke/', id: (s) => s.key, form: { confirm: 'yes' }, ownStatus: 303 },
  // The header's search box: by text here, by this environment's ids and tokens below.
  ...['isolated', '4242', '10.00', '4242 10.00', 'ada@shop.example'].map((q): PageRoute => ({ kind: 'page', path: '/search/', query: `?q=${encodeURIComponent(q)}` })),
];

const methodOf = (r: Route) => (r.kind === 'page' ? 'GET' : r.kind === 'own' ? 'POST' : r.method);
const ID_ROUTES = ROUTES.filter((r): r is IdRoute => r.kind === 'id');

describe.each(ENGINES)('dashboard isolation on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let other: Client;
  let owner: Browser;
  let stranger: Browser;
  let mine: Shop;
  let stripe: StripeDouble;

  beforeAll(async () => {
    // Connecting a processor checks its key at Stripe: the test double answers.
    stripe = await startStripeDouble();
    // No delay before the sandbox bank disputes a sale paid with its disputing card.
    t = await startIsolatedService(engine, { env: { SANDBOX_DISPUTE_DELAY_MS: '0', STRIPE_API_URL: stripe.url } });
    shop = await t.newEnvironment('Isolated shop');
    other = await t.newEnvironment('Stranger shop');
    const own = await member(t, shop, 'owner');
    owner = own.browser;
    stranger = (await member(t, other, 'owner')).browser;
    const orderId = `isolated-${Date.now()}`;
    // Held and partly captured: capture, refund and void all have something to act on.
    const { transaction, sale: paid } = await paidTransaction(shop, priced('EUR', 10, { order_id: orderId, authorize: true, notify_url: 'https://shop.example/hook', customer_email: 'isolated.payer@customer.example' }));
    expect((await shop.post(`/sale/${paid.id}/capture/`, { amount: 5 })).status).toBe(200);
    const cancelled = await shop.post('/transaction/', transactionBody({ notify_url: 'https://shop.example/hook' }));
    await cancelToken(shop.url, cancelled.body.token);
    const event = (await shop.get(`/event/?object_id=${cancelled.body.id}`)).body.results[0];
    const [key] = await listApiKeys(t.service.deps.database.db, shop.keys.environment_id);
    const objects = {} as Record<GroupName, string>;
    for (const group of GROUPS) objects[group] = (await shop.post(`/${group}/`, CATALOGUE_BODIES[group])).body.id;
    const client = (await shop.post('/client/', clientBody({ name: 'Isolated Ada', email: 'isolated.ada@shop.example' }))).body;
    const iban = (await shop.post(`/client/${client.id}/iban/`, { iban: IBANS.ES })).body;
    const wallet = (await shop.post('/wallet/', { wallet_id: 'isolated-wallet', name: 'Isolated wallet', client_id: client.id, currency: 'EUR' })).body;
    const upload = async (name: string) => (await shop.post(`/client/${client.id}/document/`, documentBody({ name }))).body.id as string;
    const documents: [string, string] = [await upload('isolated-front.pdf'), await upload('isolated-back.pdf')];
    const plan = (await shop.post('/plan/', { name: 'Isolated plan', amount: 5, currency: 'EUR', interval: 'month' })).body;
    const card = (await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' } })).body;
    const subscription = (await shop.post('/subscription/', { plan: plan.id, authorization: card.id, subscription_id: 'isolated-sub' })).body;
    expect((await shop.post(`/subscription/${subscription.id}/start/`, undefined)).body.status).toBe('active');
    const endpoint = (await shop.post('/webhook_endpoint/', { url: 'https://isolated-hooks.shop.example/in', enabled_events: ['*'], description: 'Isolated hooks' })).body;
    const attempt = await failedAttempt(endpoint.id);
    await setPricing(t.service.deps.database.db, shop.keys.environment_id, { charge: NO_FEE, refund: NO_FEE, settlementDelayDays: 0 }, new Date());
    await paidTransaction(shop, priced('EUR', 20));
    while ((await shop.get('/balance/')).body.available.every((a: { amount: number }) => a.amount <= 0)) {
      if ((await t.service.jobs.runOnce(JOB_NAMES.balance)) === 0) throw new Error('nothing available to pay out');
    }
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES, schedule: 'manual' })).status).toBe(200);
    const payout = (await shop.post('/merchant_payout/', { currency: 'EUR' })).body;
    const disputed = async () => {
      const created = await shop.post('/transaction/', priced('EUR', 30));
      expect(await payToken(shop.url, created.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
      return created.body.id as string;
    };
    await disputed();
    await disputed();
    expect(await t.service.jobs.runOnce(JOB_NAMES.sandboxDisputes)).toBe(2);
    const disputes = (await shop.get('/dispute/')).body.results.map((d: { id: string }) => d.id) as [string, string];
    const processor = await shop.post('/processor/', { type: 'stripe', secret_key: 'sk_test_isolatedshop0001', webhook_secret: 'whsec_isolatedshop0001', publishable_key: 'pk_test_isolatedshop0001', statement_descriptor: 'ISOLATED SHOP' });
    expect(processor.status, processor.text).toBe(201);
    // A payout file of the shop's payout, as the payout-files job writes one in a live environment.
    const payoutFile = crypto.randomUUID();
    const at = new Date().toISOString();
    const messageId = payoutFile.replaceAll('-', '');
    await inTransaction(t.service.deps.database.db, (trx) =>
      insertFile(
        trx,
        { id: payoutFile, environment_id: shop.keys.environment_id, message_id: messageId, version: 'pain.001.001.09', state: 'written', currency: 'EUR', debtor_iban: IBANS.DE, payout_count: 1, control_sum: Math.round(payout.amount * 100), execution_date: at.slice(0, 10), xml: '<Document/>', download_count: 0, downloaded_at: null, cancelled_at: null, created_at: at, updated_at: at },
        [{ id: crypto.randomUUID(), file_id: payoutFile, environment_id: shop.keys.environment_id, kind: 'merchant_payout', payout_id: payout.id, end_to_end_id: payout.id.replaceAll('-', ''), payment_info_id: `${messageId}-1`, amount: Math.round(payout.amount * 100), active: 1 }],
      ),
    );
    expect((await owner.post('/dashboard/transactions/views/', { name: 'Isolated view', q: orderId })).status).toBe(303);
    const view = /action="\/dashboard\/transactions\/views\/([^/]+)\/delete\/"/.exec((await owner.get('/dashboard/transactions/')).text)![1]!;
    mine = { view, payoutFile, processor: processor.body.id, disputes, endpoint: endpoint.id, attempt, payout: payout.id, wallet: wallet.id, authorization: card.id, subscription: subscription.id, transaction: transaction.id, cancelled: cancelled.body.id, orderId, sale: paid.id, event: event.id, key: key!.id, publicKey: key!.public_key, ownerEmail: own.email, catalogue: objects, client: client.id, documents, iban: iban.id };
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  /**
   * A failed attempt of one of the endpoint's deliveries, written as the delivery job records
   * one (its database is the test's: no job runs here, and the endpoint's host is made up).
   */
  async function failedAttempt(endpointId: string): Promise<string> {
    const db = t.service.deps.database.db;
    await shop.post('/product/', { name: 'Isolated hook mug', price: 1, currency: 'EUR' });
    const delivery = await db.selectFrom('event_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').executeTakeFirstOrThrow();
    const id = crypto.randomUUID();
    const at = new Date().toISOString();
    await db
      .insertInto('delivery_attempts')
      .values({ id, delivery_id: delivery.id, event_id: delivery.event_id, endpoint_id: endpointId, attempt: 1, result: 'failed', status_code: 500, error: null, response_body: 'no', duration_ms: 3, created_at: at })
      .execute();
    return id;
  }
  const call = (b: Browser, route: Route, id?: string, form: Record<string, string> = {}) => {
    const path = `/dashboard${route.path.replace(':id', id ?? '').replace(':attempt', mine.attempt)}`;
    if (methodOf(route) === 'GET') return b.get(path);
    if (route.kind !== 'id' || !route.file) return b.post(path, form);
    const multipart = new FormData();
    for (const [k, v] of Object.entries(form)) multipart.append(k, v);
    const [field, type, file] = route.file;
    multipart.append(field, new Blob([new Uint8Array(file.bytes)], { type }), file.name);
    return b.postMultipart(path, multipart);
  };
  const expectNothingOf = (text: string) => {
    for (const marker of [mine.transaction, mine.orderId, mine.sale, mine.event, mine.key, mine.publicKey, mine.ownerEmail, 'Isolated shop', ...Object.values(CATALOGUE_BODIES).map((b) => String(b.name)), ...Object.values(mine.catalogue), mine.client, ...mine.documents, mine.iban, mine.subscription, mine.authorization, mine.wallet, mine.endpoint, 'isolated-hooks', 'Isolated hooks', mine.payout, ...mine.disputes, 'Isolated evidence', 'ES…1332', 'isolated-wallet', 'isolated-sub', 'Isolated plan', 'Isolated Ada', 'isolated.ada@', 'isolated.payer@', 'isolated-front', 'ES91', mine.processor, 'ISOLATED SHOP', 'isolatedshop', mine.view, 'Isolated view']) {
      expect(text).not.toContain(marker);
    }
  };
  /** What the id routes could change. */
  const state = async () => ({
    sale: (await shop.get(`/sale/${mine.sale}/`)).body,
    event: (await shop.get(`/event/${mine.event}/`)).body,
    keys: await listApiKeys(t.service.deps.database.db, shop.keys.environment_id),
    client: (await shop.get(`/client/${mine.client}/`)).body,
    subscription: (await shop.get(`/subscription/${mine.subscription}/`)).body,
    authorization: (await shop.get(`/authorization/${mine.authorization}/`)).body,
    documents: (await shop.get(`/client/${mine.client}/document/`)).body,
    catalogue: await Promise.all(GROUPS.map(async (group) => (await shop.get(`/${group}/${mine.catalogue[group]}/`)).body)),
    // As stored, its secrets included (undefined once the owner here has deleted it).
    endpoint: await getEndpoint(t.service.deps.database.db, shop.keys.environment_id, mine.endpoint),
    payout: (await shop.get(`/merchant_payout/${mine.payout}/`)).body,
    disputes: await Promise.all(mine.disputes.map(async (id) => (await shop.get(`/dispute/${id}/`)).body)),
    // As stored, its credentials included (a 404 once the owner here has disconnected it).
    processor: await t.service.deps.database.db.selectFrom('processors').selectAll().where('id', '=', mine.processor).executeTakeFirst(),
    payoutFile: await getFile(t.service.deps.database.db, shop.keys.environment_id, mine.payoutFile),
    views: await t.service.deps.database.db.selectFrom('saved_views').select(['id', 'name', 'query']).where('environment_id', '=', shop.keys.environment_id).execute(),
    audit: (await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 1000, offset: 0 })).length,
  });

  it('the table lists every route of the dashboard router', () => {
    const router = dashboardRouter(t.service.deps) as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
    const declared = router.stack.flatMap((layer) => (layer.route ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`) : []));
    const listed = [...new Set(ROUTES.map((r) => `${methodOf(r)} ${r.path}`))];
    expect(listed.sort()).toEqual([...new Set(declared)].sort());
  });

  it.each(ID_ROUTES.map((r) => [`${r.method} ${r.path}${r.form ? ` ${Object.keys(r.form).join(' ')}` : ''}`, r] as const))('%s: 404 as for a missing id, nothing changed', async (_name, route) => {
    const before = await state();
    const form = route.formOf?.(mine) ?? route.form;
    const foreign = await call(stranger, route, route.id(mine), form);
    const missing = await call(stranger, route, MISSING, form);
    expect(foreign.status, foreign.text.slice(0, 300)).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expectNothingOf(foreign.text);
    expect(await state()).toEqual(before);
    // The owner here is answered: the 404 came from the environment.
    const own = await call(owner, route, route.id(mine), form);
    expect(own.status, own.text.slice(0, 300)).toBe(route.ownStatus);
  });

  it.each(ROUTES.filter((r): r is PageRoute => r.kind === 'page').map((r) => `${r.path}${r.query ?? ''}`))('GET %s shows nothing of another environment', async (path) => {
    const theirs = await stranger.get(`/dashboard${path}`);
    expect(theirs.status).toBe(200);
    expectNothingOf(theirs.text);
    // A search for this environment's things finds nothing either.
    if (path === '/clients/') {
      for (const q of ['Isolated', 'isolated.ada', 'Ada']) expect((await stranger.get(`/dashboard/clients/?q=${q}`)).text).toContain('No clients match');
    }
    if (path === '/customers/') {
      for (const q of ['Isolated', 'isolated.ada', 'isolated.payer']) expect((await stranger.get(`/dashboard/customers/?all=1&q=${q}`)).text).toContain('No customers match');
    }
    if (path === '/transactions/') {
      for (const q of [mine.orderId, mine.transaction, '10.00', '4242']) {
        const found = await stranger.get(`/dashboard/transactions/?q=${q}`);
        expect(found.text).toContain('No payment matches');
        expect(found.text).not.toContain(`/dashboard/transactions/${mine.transaction}/`);
      }
    }
    if (path.startsWith('/search/')) {
      for (const q of [mine.transaction, mine.sale, mine.client, mine.subscription, mine.authorization, mine.wallet, mine.event, mine.orderId, 'isolated-sub', ...Object.values(mine.catalogue)]) {
        const found = await stranger.get(`/dashboard/search/?q=${encodeURIComponent(q)}`);
        expect(found.status, q).toBe(200);
        expect(found.text).toContain('Nothing in this environment matches');
        expectNothingOf(found.text.replaceAll(q, ''));
      }
    }
    expect((await owner.get(`/dashboard${path}`)).status).toBe(200);
  });

  it('posts without an id act in the poster’s environment only', async () => {
    const db = t.service.deps.database.db;
    const env = shop.keys.environment_id;
    const totp = () => db.selectFrom('user_totp').innerJoin('memberships', 'memberships.user_id', 'user_totp.user_id').selectAll('user_totp').where('memberships.environment_id', '=', env).execute();
    const before = { keys: await listApiKeys(db, env), members: await membersOf(db, env), totp: await totp(), brand: await getBrand(db, env) };
    expect((await stranger.post('/dashboard/environment/', { environment: env })).status).toBe(403);
    expect((await stranger.post('/dashboard/keys/', { label: 'Stolen' })).status).toBe(303);
    const invited = await stranger.post('/dashboard/team/invite/', { email: 'intruder@shop.example', role: 'owner' });
    expect(invited.status).toBe(201);
    expectNothingOf(invited.text);
    // A user's own second factor: the stranger's, never anyone's here.
    expect((await stranger.post('/dashboard/account/security/totp/', {})).status).toBe(303);
    expect((await stranger.post('/dashboard/account/security/totp/confirm/', { code: '000000' })).status).toBe(400);
    expect((await stranger.post('/dashboard/account/security/totp/disable/', { password: 'x', code: '000000' })).status).toBe(400);
    // Settings change the poster's own brand.
    expect((await stranger.post('/dashboard/settings/', { display_name: 'Stolen brand', brand_color: '#000000' })).status).toBe(303);
    expect((await getBrand(db, other.keys.environment_id))!.display_name).toBe('Stolen brand');
    expect({ keys: await listApiKeys(db, env), members: await membersOf(db, env), totp: await totp(), brand: await getBrand(db, env) }).toEqual(before);
    // The logo too, in the same form: the stranger's own, uploaded and removed; this environment's untouched.
    const png = new FormData();
    png.append('display_name', 'Stolen brand');
    png.append('logo', new Blob([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')]), 'logo.png');
    expect((await stranger.postMultipart('/dashboard/settings/', png)).status).toBe(303);
    expect((await getBrand(db, other.keys.environment_id))!.logo_sha256).not.toBeNull();
    expect((await stranger.post('/dashboard/settings/logo/remove/', {})).status).toBe(303);
    expect((await getBrand(db, other.keys.environment_id))!.logo_sha256).toBeNull();
    expect(await getBrand(db, env)).toEqual(before.brand);
    // The time zone too: the stranger's own.
    expect((await stranger.post('/dashboard/settings/time-zone/', { time_zone: 'Asia/Tokyo' })).status).toBe(303);
    expect((await findEnvironment(db, other.keys.environment_id))!.time_zone).toBe('Asia/Tokyo');
    expect((await findEnvironment(db, env))!.time_zone).toBe('UTC');
    // A catalogue object made by the stranger is the stranger's.
    const products = (await shop.get('/product/')).body.count;
    for (const group of GROUPS) expect((await stranger.post(`/dashboard/catalogue/${group}/`, { name: 'Stranger thing' })).status).not.toBe(500);
    const made = await stranger.post('/dashboard/catalogue/product/', { name: 'Stranger mug', price: '3', currency: 'EUR' });
    expect(made.status).toBe(303);
    expect((await shop.get('/product/')).body.count).toBe(products);
    expect((await other.get('/product/')).body.results.map((p: { name: string }) => p.name)).toContain('Stranger mug');
    // Read from the store: the owner here may have revoked the key pair `shop` uses by now.
    const processorsOf = async (environmentId: string) => (await listProcessors(db, environmentId, { page: 1, page_size: 100 })).rows;
    const processors = await processorsOf(env);
    // A webhook endpoint made by the stranger is the stranger's.
    const endpoints = (await shop.get('/webhook_endpoint/')).body.count;
    expect((await stranger.post('/dashboard/webhook-endpoints/', { url: 'https://stranger.example/in', events: '*' })).status).toBe(201);
    expect((await shop.get('/webhook_endpoint/')).body.count).toBe(endpoints);
    expect((await other.get('/webhook_endpoint/')).body.results.map((e: { url: string }) => e.url)).toContain('https://stranger.example/in');
    // A Stripe account connected by the stranger is the stranger's.
    expect((await stranger.post('/dashboard/processors/', { type: 'stripe', secret_key: 'sk_test_stranger0001', webhook_secret: 'whsec_stranger0001', publishable_key: 'pk_test_stranger0001' })).status).toBe(303);
    expect(await processorsOf(env)).toEqual(processors);
    expect((await processorsOf(other.keys.environment_id)).map((p) => p.secret_key_last4)).toEqual(['0001']);
    // A statement uploaded by the stranger is imported for the stranger's environment only (here no SEPA files at all: refused, nothing changed).
    const statement = new FormData();
    statement.append('file', new Blob(['<Document/>']), 'statement.xml');
    const payoutFile = await getFile(db, env, mine.payoutFile);
    expect((await stranger.postMultipart('/dashboard/payout-files/statement/', statement)).status).toBe(409);
    expect(await getFile(db, env, mine.payoutFile)).toEqual(payoutFile);
    // "Pay out now" by the stranger pays out the stranger's balance (nothing): this environment's is untouched.
    // From the store: the key pair `shop` uses may be revoked by now.
    const money = async () => ({ balance: await balanceOf(db, env, new Date()), payouts: await listMerchantPayouts(db, env, {}, { page: 1, page_size: 100 }) });
    const moneyBefore = await money();
    for (const form of [{ currency: 'EUR' }, { currency: 'EUR', confirm: 'yes' }] as Record<string, string>[]) {
      const refused = await stranger.post('/dashboard/balance/pay-out/', form);
      expect(refused.status).toBe(409);
      expectNothingOf(refused.text);
    }
    expect(await money()).toEqual(moneyBefore);
    // Signing out, even everywhere, ends the stranger's sessions only.
    const again = (await member(t, other, 'owner')).browser;
    expect((await again.post('/dashboard/sign-out-everywhere/', {})).status).toBe(303);
    expect((await again.post('/dashboard/sign-out/', {})).status).toBe(403);
    expect((await owner.get('/dashboard/')).status).toBe(200);
    expect((await stranger.get('/dashboard/')).status).toBe(200);
  });
});
