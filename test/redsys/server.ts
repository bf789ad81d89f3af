import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT, REDSYS_PATHS } from '../../server/payments/redsys/settings';
import { type Books, openBooks, RedsysError, type Terminal } from './books';
import { decisionPage, errorPage, type PendingPayment } from './page';
import { answerParams, checkPagePayment, checkStoredCharge, readSigned, signAnswer } from './params';
import { queryAnswer } from './query';
import { type HeldRequest, heldRequest } from '../held-answer';

// A strict Redsys test double: a loopback HTTP server of our own that answers the three
// services the connector uses, at the paths Redsys documents: the payment page
// (`/sis/realizarPago`: a tiny HTML page where a person or a test approves, denies or pays
// by Bizum, then the signed notification to DS_MERCHANT_MERCHANTURL and the customer sent
// to URLOK / URLKO), REST operations (`/sis/rest/trataPeticionREST`: confirmations, refunds,
// cancellations and stored-card charges, **carried out every time they are sent**, as
// Redsys does) and the query service (`/apl02/services/SerClsWSConsulta`, SOAP; one
// terminal without it). Built from Redsys's public guides as read; never run against
// Redsys from these machines (docs/processors.md "Redsys"). Its switches, for the fault
// tests: a 500 before or after carrying a request out (`failNext`), its answer lost after
// (`loseNext`), held before or after (`holdNext`), a refusal before (`refuseNext`), an
// answer altered (`rewriteNext`), notifications held until sent (`holdNotifications`).

export interface LoggedRequest {
  service: 'page' | 'decide' | 'rest' | 'query' | 'other';
  /** The decoded Ds_Merchant parameters (or the query's fields). */
  params: Record<string, string>;
  status: number;
  /** Redsys's refusal code, when it refused. */
  errorCode: string | null;
  /** Carried out, then the connection was cut before the answer (loseNext). */
  lost: boolean;
}

export interface SentNotification {
  url: string;
  fields: Record<string, string>;
  status: number | null;
}

type Service = 'rest' | 'query' | 'page';

export interface RedsysDouble {
  url: string;
  books: Books;
  terminals: Terminal[];
  requests: LoggedRequest[];
  notifications: SentNotification[];
  /** The next request to `service` answers 500 (`acted`: after carrying it out). */
  failNext(service: Service, options?: { acted?: boolean }): void;
  /** The next request to `service` is carried out, then its connection is cut: the answer is lost. */
  loseNext(service: Service): void;
  /** The issuer declines the next stored-card charge with `response` (Redsys's Ds_Response; a plain decline by default). */
  declineNextCharge(response?: string): void;
  /**
   * The next request to `service` waits: before it is carried out (`acted: false`: released,
   * its connection is cut and it never was), or after (`acted: true`: its answer sent when
   * released). For a test that kills the caller meanwhile.
   */
  holdNext(service: Service, options: { acted: boolean }): HeldRequest;
  /** The next REST operation is refused with `code` before it is carried out. */
  refuseNext(code: string): void;
  /** Notifications wait until `sendNotifications()` (true), or go when the customer decides (false, the default). */
  holdNotifications: boolean;
  /** Sends the notifications held, in order. */
  sendNotifications(): Promise<void>;
  /** The next REST answer's parameters are altered, and signed again, on their way out (what a faulty processor would send). */
  rewriteNext(rewrite: (params: Record<string, string>) => Record<string, string>): void;
  close(): Promise<void>;
}

/** The published test terminal (with the query service) and a second terminal of it without. */
export const DEFAULT_TERMINALS: Terminal[] = [
  { merchantCode: PUBLIC_TEST_MERCHANT, terminal: '1', secretKey: PUBLIC_TEST_KEY, signatureVersion: 'HMAC_SHA256_V1', queryService: true },
  { merchantCode: PUBLIC_TEST_MERCHANT, terminal: '2', secretKey: PUBLIC_TEST_KEY, signatureVersion: 'HMAC_SHA256_V1', queryService: false },
];

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

const form = (text: string) => Object.fromEntries(new URLSearchParams(text));

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}

export async function startRedsysDouble(options: { terminals?: Terminal[] } = {}): Promise<RedsysDouble> {
  const terminals = options.terminals ?? DEFAULT_TERMINALS;
  const books = openBooks();
  const requests: LoggedRequest[] = [];
  const notifications: SentNotification[] = [];
  const pending = new Map<string, PendingPayment>();
  const failures: { service: Service; acted: boolean }[] = [];
  const losses: Service[] = [];
  const rewrites: ((params: Record<string, string>) => Record<string, string>)[] = [];
  const declines: string[] = [];
  const holds: { service: Service; acted: boolean; hold: ReturnType<typeof heldRequest> }[] = [];
  const refusals: string[] = [];
  const heldNotifications: (() => Promise<void>)[] = [];
  const control = { holdNotifications: false };
  const signRest = (terminal: Terminal, params: Record<string, string>) => signAnswer(terminal, (rewrites.shift() ?? ((p) => p))(params), 'base64');
  const take = <T extends { service: Service } | Service>(list: T[], service: Service) => {
    const at = list.findIndex((x) => (typeof x === 'string' ? x : x.service) === service);
    return at < 0 ? undefined : list.splice(at, 1)[0];
  };

  /** Posts the signed notification as Redsys does (a form), and keeps what was sent. */
  async function notify(p: PendingPayment, params: Record<string, string>): Promise<void> {
    if (control.holdNotifications) return void heldNotifications.push(() => notify(p, params));
    const fields = signAnswer(p.signed.terminal, params, 'base64url');
    const url = p.signed.params.DS_MERCHANT_MERCHANTURL;
    const entry: SentNotification = { url: url ?? '', fields, status: null };
    notifications.push(entry);
    if (!url) return;
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }).catch(() => null);
    entry.status = response?.status ?? 0;
  }

  async function page(body: string, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    const signed = readSigned(terminals, form(body), 'page');
    entry.params = signed.params;
    checkPagePayment(signed);
    if (books.used(signed.terminal, signed.params.DS_MERCHANT_ORDER!)) throw new RedsysError('SIS0051', 'order used before on this terminal');
    const session = randomBytes(12).toString('hex');
    pending.set(session, { session, signed });
    send(res, 200, 'text/html; charset=utf-8', decisionPage(pending.get(session)!));
  }

  async function decide(body: string, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    const { session = '', decision = '' } = form(body);
    const p = pending.get(session);
    entry.params = { session, decision };
    if (!p || !['approve', 'deny', 'insufficient'].includes(decision)) throw new RedsysError('SIS9902', 'no such payment session, or no such decision');
    pending.delete(session);
    const params = p.signed.params;
    const response = decision === 'approve' ? '0000' : decision === 'insufficient' ? '0116' : '0190';
    const type = params.DS_MERCHANT_TRANSACTIONTYPE as '0' | '1';
    const order = books.pay(p.signed.terminal, { order: params.DS_MERCHANT_ORDER!, type, amount: Number(params.DS_MERCHANT_AMOUNT), currency: params.DS_MERCHANT_CURRENCY!, response, merchantData: params.DS_MERCHANT_MERCHANTDATA ?? '', store: params.DS_MERCHANT_IDENTIFIER === 'REQUIRED' });
    const answer = answerParams(order, order.payment, params.DS_MERCHANT_PAYMETHODS === 'z' ? { Ds_ProcessedPayMethod: '68' } : {});
    await notify(p, answer);
    const back = response === '0000' ? params.DS_MERCHANT_URLOK : params.DS_MERCHANT_URLKO;
    if (!back) return send(res, 200, 'text/html; charset=utf-8', '<!doctype html><title>Redsys double</title><p>Done.</p>');
    const target = new URL(back);
    for (const [k, v] of Object.entries(signAnswer(p.signed.terminal, answer, 'base64url'))) target.searchParams.set(k, v);
    send(res, 303, 'text/html; charset=utf-8', '', { location: target.toString() });
  }

  /** A REST operation: carried out every time it arrives. */
  function restOperation(body: string, entry: LoggedRequest): Record<string, string> {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      throw new RedsysError('SIS9902', 'the body is not JSON');
    }
    const signed = readSigned(terminals, json, 'rest');
    entry.params = signed.params;
    const p = signed.params;
    const type = p.DS_MERCHANT_TRANSACTIONTYPE!;
    const base = { order: p.DS_MERCHANT_ORDER!, amount: Number(p.DS_MERCHANT_AMOUNT), currency: p.DS_MERCHANT_CURRENCY! };
    if (type === '0' || type === '1') {
      const { identifier } = checkStoredCharge(books, signed);
      const card = books.cards.get(identifier)!;
      const order = books.pay(signed.terminal, { ...base, type, response: declines.shift() ?? '0000', merchantData: p.DS_MERCHANT_MERCHANTDATA ?? '', store: false });
      order.stored = { identifier, cofTxnid: card.cofTxnid };
      return signRest(signed.terminal, answerParams(order, order.payment));
    }
    const { order, operation } = books.operate(signed.terminal, { ...base, type: type as '2' | '3' | '9' });
    return signRest(signed.terminal, answerParams(order, operation));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    const body = req.method === 'POST' ? await readBody(req) : '';
    entry.service = path === REDSYS_PATHS.redirect ? 'page' : path === '/sis/double/decide' ? 'decide' : path === REDSYS_PATHS.rest ? 'rest' : path === REDSYS_PATHS.query ? 'query' : 'other';
    if (entry.service === 'other' || req.method !== 'POST') return send(res, 404, 'text/plain', 'Not found');
    const service = entry.service === 'decide' ? 'page' : entry.service;
    const failure = take(failures, service);
    if (failure && !failure.acted) return send(res, 500, 'text/plain', 'Internal error');
    const lose = take(losses, service);
    const held = take(holds, service);
    if (held && !held.acted) {
      // Logged as it came, though never carried out.
      if (entry.service === 'rest') entry.params = readSigned(terminals, JSON.parse(body) as Record<string, unknown>, 'rest').params;
      held.hold.arrive();
      await held.hold.released;
      return void res.socket?.destroy();
    }
    const refusal = entry.service === 'rest' ? refusals.shift() : undefined;
    if (refusal) {
      // Logged as it came, though never carried out.
      entry.params = readSigned(terminals, JSON.parse(body) as Record<string, unknown>, 'rest').params;
      throw new RedsysError(refusal, 'refused before it was carried out (the double’s refuseNext)');
    }
    let answer: { status: number; type: string; body: string } | null = null;
    if (entry.service === 'page') await page(body, res, entry);
    else if (entry.service === 'decide') await decide(body, res, entry);
    else if (entry.service === 'rest') answer = { status: 200, type: 'application/json', body: JSON.stringify(restOperation(body, entry)) };
    else answer = { status: 200, type: 'text/xml; charset=utf-8', body: queryAnswer(terminals, books, body, entry) };
    if (failure) return send(res, 500, 'text/plain', 'Internal error');
    if (lose) {
      entry.lost = true;
      return void res.socket?.destroy();
    }
    if (held) {
      held.hold.arrive();
      await held.hold.released;
    }
    if (answer) send(res, answer.status, answer.type, answer.body);
  }

  const server = createServer((req, res) => {
    const entry: LoggedRequest = { service: 'other', params: {}, status: 0, errorCode: null, lost: false };
    requests.push(entry);
    res.on('finish', () => (entry.status = res.statusCode));
    handle(req, res, entry).catch((error: unknown) => {
      if (!(error instanceof RedsysError)) return send(res, 500, 'text/plain', 'Internal error');
      entry.errorCode = error.code;
      // REST answers a refusal as {"errorCode"} with 200; the payment page shows it in HTML.
      if (entry.service === 'rest') return send(res, 200, 'application/json', JSON.stringify({ errorCode: error.code }));
      send(res, 400, 'text/html; charset=utf-8', errorPage(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    books,
    terminals,
    requests,
    notifications,
    failNext: (service, o) => failures.push({ service, acted: o?.acted ?? false }),
    loseNext: (service) => losses.push(service),
    holdNext: (service, { acted }) => {
      const hold = heldRequest();
      holds.push({ service, acted, hold });
      return { arrived: hold.arrived, release: hold.release };
    },
    refuseNext: (code) => void refusals.push(code),
    get holdNotifications() {
      return control.holdNotifications;
    },
    set holdNotifications(value: boolean) {
      control.holdNotifications = value;
    },
    sendNotifications: async () => {
      control.holdNotifications = false;
      for (const send of heldNotifications.splice(0)) await send();
    },
    rewriteNext: (rewrite) => rewrites.push(rewrite),
    declineNextCharge: (response = '0190') => declines.push(response),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
