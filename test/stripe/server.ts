import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Books, openBooks, type TestPaymentMethod } from './books';
import { badKey, invalid, serverError, StripeRefusal } from './errors';
import { canonical, type Form, parseForm } from './form';
import { idempotencyKeys } from './idempotency';
import type { StripeObject } from './objects';
import { checkParams } from './params';
import { answerChallenge } from './payment-intents';
import { failRefund } from './refunds';
import { type Route, ROUTES } from './routes';

// A strict Stripe test double: a loopback HTTP server of our own that answers the part of
// Stripe's REST API the connector uses (routes.ts), built from Stripe's public API
// reference and its published example objects (objects.ts). Strict where Stripe is: an
// unknown parameter, a reused Idempotency-Key with another body, a second capture, a
// capture above the capturable amount, an over-refund, a PaymentMethod reused without a
// Customer and a key that is not a test key are each refused with Stripe's status and
// error code. Tests read its request log (`requests`: every request with its parameters,
// Idempotency-Key and Stripe-Version) and turn its switches: a 500 for the next matching
// request, saved for its key (`failNext`), an answer altered on its way out
// (`rewriteNext`), refunds that go pending and fail later, the clock, search's lag.
//
// Never run against Stripe itself from these machines: where the double and Stripe could
// differ, the double follows Stripe's documentation as read (docs/processors.md).

export interface LoggedRequest {
  method: string;
  path: string;
  params: Form;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  status: number;
  /** Answered from the Idempotency-Key's saved answer, not executed. */
  replayed: boolean;
}

interface Match {
  method: 'GET' | 'POST';
  path: RegExp;
}

export interface StripeDouble {
  url: string;
  books: Books;
  requests: LoggedRequest[];
  /** A PaymentMethod as Stripe.js makes it in the customer's browser: its id. */
  paymentMethod(test: TestPaymentMethod): string;
  /** The next request matching answers 500 (`acted`: after carrying it out), and its Idempotency-Key keeps that answer. */
  failNext(match: Match, options?: { acted?: boolean }): void;
  /** The next successful answer matching is altered on its way out (what a faulty processor would send). */
  rewriteNext(match: Match, rewrite: (body: StripeObject) => StripeObject): void;
  /** The customer completes (or fails) a PaymentIntent's 3-D Secure. */
  answerChallenge(paymentIntent: string, completed: boolean): void;
  /** A pending refund fails. */
  failRefund(refund: string, reason?: string): StripeObject;
  close(): Promise<void>;
}

const TEST_KEY = /^(sk|rk)_test_[A-Za-z0-9]+$/;
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
const take = <T>(switches: Switch<T>[], method: string, path: string): T | undefined => {
  const at = switches.findIndex((s) => s.match.method === method && s.match.path.test(path));
  return at < 0 ? undefined : switches.splice(at, 1)[0]!.value;
};

/** Who is calling: a test key, or the refusal Stripe answers. */
function authorize(req: IncomingMessage): void {
  const header = req.headers.authorization ?? '';
  const key = header.startsWith('Bearer ') ? header.slice(7).trim() : null;
  if (!key || !TEST_KEY.test(key)) throw badKey(key);
  const version = req.headers['stripe-version'];
  if (typeof version === 'string' && !API_VERSION.test(version)) throw invalid(null, `Invalid Stripe API version: ${version}`);
}

function findRoute(method: string, path: string): { route: Route; id: string } {
  for (const route of ROUTES) {
    const match = route.method === method ? route.path.exec(path) : null;
    if (match) return { route, id: match[1] ?? '' };
  }
  throw new StripeRefusal(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` }, true);
}

export async function startStripeDouble(): Promise<StripeDouble> {
  let url = '';
  const books = openBooks(() => url);
  const keys = idempotencyKeys(books.now);
  const failures: Switch<{ acted: boolean }>[] = [];
  const rewrites: Switch<(body: StripeObject) => StripeObject>[] = [];
  const requests: LoggedRequest[] = [];

  /** Carries out one request: the answer to send, and whether it may be saved for its key. */
  function execute(method: string, path: string, form: Form): { status: number; body: unknown; save: boolean } {
    const { route, id } = findRoute(method, path);
    const params = checkParams(route.endpoint, form);
    const failure = take(failures, method, path);
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

  async function handle(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    const text = req.method === 'POST' ? await readBody(req) : query;
    const form = parseForm(text);
    Object.assign(entry, { path, params: form ?? {} });
    authorize(req);
    if (!form) throw new StripeRefusal(400, { type: 'invalid_request_error', message: 'Invalid request: the body could not be read.' }, true);
    const key = req.method === 'POST' ? entry.idempotencyKey : null;
    const request = `${req.method} ${path} ${canonical(form)}`;
    const saved = key ? keys.replay(key, request) : null;
    if (saved) {
      entry.replayed = true;
      entry.status = saved.status;
      return send(res, saved.status, saved.body, { 'idempotent-replayed': 'true', 'idempotency-key': key! });
    }
    const answer = execute(req.method ?? 'GET', path, form);
    if (key && answer.save) keys.save(key, request, answer);
    const rewrite = answer.status === 200 ? take(rewrites, req.method ?? '', path) : undefined;
    entry.status = answer.status;
    send(res, answer.status, rewrite ? rewrite(answer.body as StripeObject) : answer.body, key ? { 'idempotency-key': key } : {});
  }

  const server = createServer((req, res) => {
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
    const entry: LoggedRequest = { method: req.method ?? '', path: '', params: {}, idempotencyKey: header('idempotency-key'), stripeVersion: header('stripe-version'), status: 0, replayed: false };
    requests.push(entry);
    handle(req, res, entry).catch((error: unknown) => {
      const refusal = error instanceof StripeRefusal ? error : serverError();
      entry.status = refusal.status;
      send(res, refusal.status, refusal.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    books,
    requests,
    paymentMethod: (test) => books.newPaymentMethod(test).id,
    failNext: (match, options) => failures.push({ match, value: { acted: options?.acted ?? false } }),
    rewriteNext: (match, rewrite) => rewrites.push({ match, value: rewrite }),
    answerChallenge: (pi, completed) => answerChallenge(books, pi, completed),
    failRefund: (refund, reason) => failRefund(books, refund, reason),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
