import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Books, openBooks, type TestPaymentMethod } from './books';
import { badKey, invalid, serverError, StripeRefusal } from './errors';
import { canonical, type Form, parseForm } from './form';
import { idempotencyKeys } from './idempotency';
import { payout, type StripeObject } from './objects';
import { actOnSession, type CheckoutAction } from './checkout-sessions';
import { checkoutPage } from './checkout-page';
import { authenticationPage } from './authentication-page';
import { sendEvent, signedEvent } from './events';
import { checkParams } from './params';
import { answerChallenge } from './payment-intents';
import { failRefund, settleRefund } from './refunds';
import { decideDispute, openDispute } from './disputes';
import { createFile, readUpload, uploadRequest } from './files';
import { type Route, ROUTES } from './routes';
import { publishableKeyOf, publishableRequest } from './publishable';
import { standInStripeJs } from './stripe-js';
import { type HeldRequest, heldRequest } from '../held-answer';

// A strict Stripe test double: a loopback HTTP server of our own that answers the part of
// Stripe's REST API the connector uses (routes.ts), built from Stripe's public API
// reference and its published example objects (objects.ts). Strict where Stripe is: an
// unknown parameter, a reused Idempotency-Key with another body, a second capture, a
// capture above the capturable amount, an over-refund, a PaymentMethod reused without a
// Customer and a key that is not a test key are each refused with Stripe's status and
// error code. Tests read its request log (`requests`: every request with its parameters,
// Idempotency-Key and Stripe-Version) and turn its switches: a 500 for the next matching
// request, saved for its key (`failNext`), a request held before or after it is carried
// out (`holdNext`), carried out with its answer lost (`loseNext`) or refused before
// (`refuseNext`), an answer altered on its way out (`rewriteNext`), Stripe down
// altogether (`unreachable`), refunds that go pending and succeed or fail later, disputes the bank
// opens and decides (disputes.ts), the account's own payouts (`payOut`), the clock, search's lag. A PaymentIntent's 3-D Secure
// redirect leads to its stand-in issuer page (authentication-page.ts). Uploads go to a second
// listener, Stripe's files host (`filesUrl`, files.ts), which the API host does not stand
// in for.
//
// Never run against Stripe itself from these machines: where the double and Stripe could
// differ, the double follows Stripe's documentation as read (docs/processors.md).

export interface LoggedRequest {
  /** Which of Stripe's hosts: the API's, or the files host (uploads). */
  host: 'api' | 'files';
  /** The API key it came with (a test key: one double may be asked by several connected accounts). */
  key: string | null;
  method: string;
  path: string;
  params: Form;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  status: number;
  /** Answered from the Idempotency-Key's saved answer, not executed. */
  replayed: boolean;
}

export interface Delivery {
  type: string;
  url: string;
  payload: string;
  headers: Record<string, string>;
  status: number;
}

interface Match {
  method: 'GET' | 'POST';
  path: RegExp;
  /** Only a request expanding this field (a retrieval's purpose shows in what it expands). */
  expand?: string;
}

export interface StripeDouble {
  url: string;
  /** Stripe's files host (`files.stripe.com`): where uploads go (STRIPE_FILES_URL). */
  filesUrl: string;
  books: Books;
  requests: LoggedRequest[];
  /** A PaymentMethod as Stripe.js makes it in the customer's browser: its id. */
  paymentMethod(test: TestPaymentMethod): string;
  /** The next request matching answers 500 (`acted`: after carrying it out), and its Idempotency-Key keeps that answer. */
  failNext(match: Match, options?: { acted?: boolean }): void;
  /**
   * The next request matching waits: before it is carried out (`acted: false`: released, its
   * connection is cut and it never was), or after (`acted: true`: carried out at once, its
   * answer sent when released). For a test that kills the caller meanwhile.
   */
  holdNext(match: Match, options: { acted: boolean }): HeldRequest;
  /** The next request matching is carried out, then its connection is cut: the answer is lost. */
  loseNext(match: Match): void;
  /** The next request matching is refused before it is carried out (a 400 that saves nothing for its key). */
  refuseNext(match: Match): void;
  /** The next successful answer matching is altered on its way out (what a faulty processor would send). */
  rewriteNext(match: Match, rewrite: (body: StripeObject) => StripeObject): void;
  /** The customer completes (or fails) a PaymentIntent's 3-D Secure. */
  answerChallenge(paymentIntent: string, completed: boolean): void;
  /** A pending refund fails (the bank returned it): `refund.updated` and `refund.failed` are sent. */
  failRefund(refund: string, reason?: string): Promise<Delivery[]>;
  /** A pending refund goes through: `refund.updated` is sent. */
  settleRefund(refund: string): Promise<Delivery[]>;
  /** The key is rolled or revoked at Stripe: refused from now on, as an unknown key is (401). */
  revokeKey(key: string): void;
  /** The cardholder's bank disputes a captured charge: `charge.dispute.created` (and `.funds_withdrawn`) are sent. */
  openDispute(charge: string, options?: { reason?: string; inquiry?: boolean; amount?: number }): Promise<{ dispute: StripeObject; deliveries: Delivery[] }>;
  /** Stripe pays the account's balance out to its bank on its own schedule: a new payout (in transit unless `fields` say otherwise). */
  payOut(fields: { amount: number; currency: string } & StripeObject): StripeObject;
  /** The bank decides a dispute: `charge.dispute.closed` (and `.funds_reinstated` when won) are sent. */
  decideDispute(dispute: string, outcome: 'won' | 'lost'): Promise<Delivery[]>;
  /** A webhook endpoint, as registered at Stripe: every event from now on is signed with `secret` and posted to `url`. */
  addWebhookEndpoint(url: string, secret: string, apiVersion?: string): void;
  /** Events wait until `deliverEvents()` (true), or go as they happen, before the answer that caused them (false, the default). */
  holdEvents: boolean;
  /** Stripe down (true): every request to its API host has its connection cut before it is carried out, until false. */
  unreachable: boolean;
  /** Sends the events held (or a test's own choice of them), in order; resolves with each delivery. */
  deliverEvents(): Promise<Delivery[]>;
  /** Every delivery made: the event, its signed body and the endpoint's answer. */
  deliveries: Delivery[];
  /** Resolves once every delivery under way has its answer (a browser page's events go after its redirect, racing the customer's return). */
  settled(): Promise<void>;
  /** A payment that still goes through on a session expired meanwhile (the race between expiring and paying). */
  payLate(session: string, action?: CheckoutAction): Promise<Delivery[]>;
  close(): Promise<void>;
}

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9]+$/;
const LIVE_KEY = /^(sk|rk)_live_[A-Za-z0-9]+$/;
const API_VERSION = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/;

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers });
  res.end(JSON.stringify(body, null, 2));
}

type Switch<T> = { match: Match; value: T };
const expands = (params: Form, field: string | undefined): boolean => field === undefined || (Array.isArray(params.expand) && params.expand.includes(field));
const take = <T>(switches: Switch<T>[], method: string, path: string, params: Form): T | undefined => {
  const at = switches.findIndex((s) => s.match.method === method && s.match.path.test(path) && expands(params, s.match.expand));
  return at < 0 ? undefined : switches.splice(at, 1)[0]!.value;
};

/** Who is calling: a test key (a live one too with `liveKeys`) not revoked, or the refusal Stripe answers. */
function authorize(req: IncomingMessage, keys: { live: boolean; revoked: ReadonlySet<string> }): void {
  const header = req.headers.authorization ?? '';
  const key = header.startsWith('Bearer ') ? header.slice(7).trim() : null;
  if (!key || !(TEST_KEY.test(key) || (keys.live && LIVE_KEY.test(key))) || keys.revoked.has(key)) throw badKey(key);
  const version = req.headers['stripe-version'];
  if (typeof version === 'string' && !API_VERSION.test(version)) throw invalid(null, `Invalid Stripe API version: ${version}`);
}

function findRoute(method: string, path: string): { route: Route; id: string } {
  for (const route of ROUTES) {
    const match = route.method === method ? route.path.exec(path) : null;
    if (match) return { route, id: match[1] ?? '' };
  }
  throw unrecognized(method, path);
}

const unrecognized = (method: string, path: string) =>
  new StripeRefusal(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` }, true);

/** `liveKeys`: live keys are taken too (a live environment's tests, with PROCESSOR_URLS_IN_LIVE). */
export async function startStripeDouble(options: { liveKeys?: boolean } = {}): Promise<StripeDouble> {
  let url = '';
  const callers = { live: options.liveKeys ?? false, revoked: new Set<string>() };
  const books = openBooks(() => url);
  const keys = idempotencyKeys(books.now);
  const failures: Switch<{ acted: boolean }>[] = [];
  const rewrites: Switch<(body: StripeObject) => StripeObject>[] = [];
  type Fault = { kind: 'hold'; acted: boolean; hold: ReturnType<typeof heldRequest> } | { kind: 'lose' } | { kind: 'refuse' };
  const faults: Switch<Fault>[] = [];
  const requests: LoggedRequest[] = [];
  const endpoints: { url: string; secret: string; apiVersion: string }[] = [];
  const deliveries: Delivery[] = [];
  const held: { type: string; object: StripeObject; previous?: StripeObject }[] = [];
  const control = { holdEvents: false, unreachable: false };

  const underWay = new Set<Promise<Delivery[]>>();

  /** The events the last change queued: sent now, one endpoint after another, or held. */
  function deliver(events = books.outbox.splice(0)): Promise<Delivery[]> {
    const sending = sendEvents(events).finally(() => underWay.delete(sending));
    underWay.add(sending);
    return sending;
  }

  async function sendEvents(events: typeof held): Promise<Delivery[]> {
    if (control.holdEvents) {
      held.push(...events);
      return [];
    }
    const made: Delivery[] = [];
    for (const { type, object, previous } of events) {
      for (const endpoint of endpoints) {
        const signed = signedEvent({ type, object, previous, secret: endpoint.secret, apiVersion: endpoint.apiVersion });
        const status = await sendEvent(endpoint.url, signed).catch(() => 0);
        made.push({ type, url: endpoint.url, payload: signed.payload, headers: signed.headers, status });
      }
    }
    deliveries.push(...made);
    return made;
  }

  /** Carries out one request: the answer to send, and whether it may be saved for its key. */
  function execute(method: string, path: string, form: Form): { status: number; body: unknown; save: boolean } {
    const { route, id } = findRoute(method, path);
    const params = checkParams(route.endpoint, form);
    const failure = take(failures, method, path, form);
    if (failure && !failure.acted) return { status: 500, body: serverError().body, save: true };
    try {
      const body = route.run(books, params, id);
      if (failure) return { status: 500, body: serverError().body, save: true };
      return { status: 200, body, save: true };
    } catch (error) {
      if (!(error instanceof StripeRefusal)) throw error;
      return { status: error.status, body: error.body, save: !error.beforeExecuting };
    }
  }

  /** Replays the answer saved for the request's Idempotency-Key, or runs it (and saves its answer when it ran). */
  async function answerKeyed(res: ServerResponse, entry: LoggedRequest, key: string | null, request: string, run: () => { status: number; body: unknown; save: boolean }): Promise<void> {
    const saved = key ? keys.replay(key, request) : null;
    if (saved) {
      entry.replayed = true;
      entry.status = saved.status;
      return send(res, saved.status, saved.body, { 'idempotent-replayed': 'true', 'idempotency-key': key! });
    }
    const fault = take(faults, entry.method, entry.path, entry.params);
    if (fault?.kind === 'refuse') throw invalid(null, 'Refused before it was carried out (the double’s refuseNext).');
    if (fault?.kind === 'hold' && !fault.acted) {
      fault.hold.arrive();
      await fault.hold.released;
      return void res.socket?.destroy();
    }
    const answer = run();
    if (key && answer.save) keys.save(key, request, answer);
    await deliver();
    const rewrite = answer.status === 200 ? take(rewrites, entry.method, entry.path, entry.params) : undefined;
    entry.status = answer.status;
    if (fault?.kind === 'lose') return void res.socket?.destroy();
    if (fault?.kind === 'hold') {
      fault.hold.arrive();
      await fault.hold.released;
    }
    send(res, answer.status, rewrite ? rewrite(answer.body as StripeObject) : answer.body, key ? { 'idempotency-key': key } : {});
  }

  /** A browser's request under the publishable key: never keyed, its events sent before the answer, readable cross-origin. */
  async function answerPublishable(res: ServerResponse, entry: LoggedRequest, run: () => StripeObject): Promise<void> {
    const cors = { 'access-control-allow-origin': '*' };
    entry.key = String(entry.params.key);
    try {
      const body = run();
      await deliver();
      entry.status = 200;
      send(res, 200, body, cors);
    } catch (error) {
      const refusal = error instanceof StripeRefusal ? error : serverError();
      await deliver();
      entry.status = refusal.status;
      send(res, refusal.status, refusal.body, cors);
    }
  }

  /** The files host: uploads only. */
  async function handleFiles(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    entry.path = (req.url ?? '').split('?')[0] ?? '';
    authorize(req, callers);
    if (req.method !== 'POST' || entry.path !== '/v1/files') throw unrecognized(entry.method, entry.path);
    const upload = await readUpload(req);
    entry.params = { ...upload.fields, ...(upload.file ? { file: upload.file.name } : {}) };
    await answerKeyed(res, entry, entry.idempotencyKey, uploadRequest(upload), () => {
      try {
        return { status: 200, body: createFile(books, upload), save: true };
      } catch (error) {
        if (!(error instanceof StripeRefusal)) throw error;
        return { status: error.status, body: error.body, save: !error.beforeExecuting };
      }
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    // The hosted Checkout page: a customer's browser, not an API client (no key).
    if (await checkoutPage(books, req, res, path)) return void (await deliver());
    // The issuer's 3-D Secure page a PaymentIntent's redirect leads to: a browser too.
    if (await authenticationPage(books, req, res, path)) return void (await deliver());
    // The stand-in Stripe.js that STRIPE_JS_URL points the payment page at.
    if (standInStripeJs(req, res, path)) return;
    const text = req.method === 'POST' ? await readBody(req) : query;
    const form = parseForm(text);
    Object.assign(entry, { path, params: form ?? {} });
    // Stripe.js in a customer's browser, under the publishable key (publishable.ts): answered to any origin.
    if (publishableKeyOf(form)) return answerPublishable(res, entry, () => publishableRequest(books, req.method ?? '', path, form!, callers.revoked));
    authorize(req, callers);
    if (!form) throw new StripeRefusal(400, { type: 'invalid_request_error', message: 'Invalid request: the body could not be read.' }, true);
    const key = req.method === 'POST' ? entry.idempotencyKey : null;
    await answerKeyed(res, entry, key, `${req.method} ${path} ${canonical(form)}`, () => execute(req.method ?? 'GET', path, form));
  }

  const listener = (host: LoggedRequest['host'], handler: typeof handle) =>
    createServer((req, res) => {
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
      const auth = header('authorization');
      const entry: LoggedRequest = { host, key: auth?.startsWith('Bearer ') ? auth.slice(7).trim() : null, method: req.method ?? '', path: '', params: {}, idempotencyKey: header('idempotency-key'), stripeVersion: header('stripe-version'), status: 0, replayed: false };
      requests.push(entry);
      if (host === 'api' && control.unreachable) return void req.socket.destroy();
      handler(req, res, entry).catch((error: unknown) => {
        const refusal = error instanceof StripeRefusal ? error : serverError();
        entry.status = refusal.status;
        send(res, refusal.status, refusal.body);
      });
    });
  const server = listener('api', handle);
  const filesServer = listener('files', handleFiles);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => filesServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const filesUrl = `http://127.0.0.1:${(filesServer.address() as AddressInfo).port}`;
  const closeServer = (srv: typeof server) =>
    new Promise<void>((resolve, reject) => {
      srv.closeAllConnections();
      srv.close((error) => (error ? reject(error) : resolve()));
    });

  return {
    url,
    filesUrl,
    books,
    requests,
    paymentMethod: (test) => books.newPaymentMethod(test).id,
    failNext: (match, options) => failures.push({ match, value: { acted: options?.acted ?? false } }),
    holdNext: (match, { acted }) => {
      const hold = heldRequest();
      faults.push({ match, value: { kind: 'hold', acted, hold } });
      return { arrived: hold.arrived, release: hold.release };
    },
    loseNext: (match) => void faults.push({ match, value: { kind: 'lose' } }),
    refuseNext: (match) => void faults.push({ match, value: { kind: 'refuse' } }),
    rewriteNext: (match, rewrite) => rewrites.push({ match, value: rewrite }),
    answerChallenge: (pi, completed) => answerChallenge(books, pi, completed),
    failRefund: (refund, reason) => {
      failRefund(books, refund, reason);
      return deliver();
    },
    settleRefund: (refund) => {
      settleRefund(books, refund);
      return deliver();
    },
    revokeKey: (key) => void callers.revoked.add(key),
    addWebhookEndpoint: (endpointUrl, secret, apiVersion = '2026-10-28.endive') => void endpoints.push({ url: endpointUrl, secret, apiVersion }),
    get holdEvents() {
      return control.holdEvents;
    },
    set holdEvents(value: boolean) {
      control.holdEvents = value;
    },
    get unreachable() {
      return control.unreachable;
    },
    set unreachable(value: boolean) {
      control.unreachable = value;
    },
    deliverEvents: () => {
      control.holdEvents = false;
      return deliver(held.splice(0));
    },
    deliveries,
    settled: async () => {
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
    },
    openDispute: async (charge, options) => {
      const dispute = openDispute(books, charge, options);
      return { dispute, deliveries: await deliver() };
    },
    payOut: (fields) => {
      const po = payout({ created: books.now(), ...fields });
      books.payouts.set(po.id, po);
      return po;
    },
    decideDispute: (dispute, outcome) => {
      decideDispute(books, dispute, outcome);
      return deliver();
    },
    payLate: (session, action = 'pay') => {
      actOnSession(books, session, action, true);
      return deliver();
    },
    close: async () => {
      await closeServer(filesServer);
      await closeServer(server);
    },
  };
}
