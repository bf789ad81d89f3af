import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address';

// One POST of a notification. For each connection the address is resolved here and
// checked before the connection is made to that very address, so a name that resolves
// differently a moment later (DNS rebinding) cannot slip through; the socket's peer is
// checked once more. A kept connection (agentFor) reaches only an address so checked.
// node:http never follows redirects: a 3xx is an answer like any other non-2xx.

const KEPT_BODY = 1000;

export interface DeliveryResponse {
  statusCode: number | null;
  error: string | null;
  body: string | null;
}

const REFUSED = 'refused: the address is private, loopback or link-local';

/** A `lookup` that fails for any name with a refused address among its answers. */
function checkedLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      if (!addresses.length || addresses.some((a) => !isPublicAddress(a.address))) {
        return callback(Object.assign(new Error(REFUSED), { code: 'EREFUSEDADDRESS' }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * The connections to endpoints are kept for the next delivery, rather than a TCP connection
 * (and a TLS handshake) for each: one agent per protocol and per address rule, so that a
 * connection made without the address check is never lent to a delivery that needs it.
 * An idle connection is closed after IDLE_MS, under the usual keep-alive limit of servers
 * (Node's 5 s; nginx and load balancers 60–75 s), so a server rarely closes one first.
 */
const IDLE_MS = 4_000;
const agents = new Map<string, http.Agent>();
function agentFor(protocol: 'http:' | 'https:', allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, timeout: IDLE_MS, ...(allowPrivate ? {} : { lookup: checkedLookup() }) };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** A kept connection the endpoint had closed when it was used: the request never reached it. */
const closedWhileKept = (req: http.ClientRequest, err: NodeJS.ErrnoException) => req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');

export function postNotification(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowPrivate: boolean; timeoutMs: number },
): Promise<DeliveryResponse> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // An IP literal is never looked up, so it is checked here.
  if (!opts.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({ statusCode: null, error: REFUSED, body: null });
  }
  const secure = target.protocol === 'https:';
  const agent = agentFor(secure ? 'https:' : 'http:', opts.allowPrivate);
  return new Promise((resolve) => {
    let settled = false;
    let req: http.ClientRequest;
    const finish = (r: DeliveryResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, error: `no answer within ${opts.timeoutMs / 1000} s`, body: null });
    }, opts.timeoutMs);
    const send = (retry: boolean) => {
      req = (secure ? https : http).request(target, {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'payment-service-webhooks/1',
        },
      });
      const sent = req;
      sent.on('socket', (socket) => {
        // A kept connection's peer was checked when it was made.
        if (opts.allowPrivate || sent.reusedSocket) return;
        socket.once('connect', () => {
          if (!isPublicAddress(socket.remoteAddress ?? '')) {
            sent.destroy();
            finish({ statusCode: null, error: REFUSED, body: null });
          }
        });
      });
      let answered = false;
      sent.on('response', (res) => {
        answered = true;
        let kept = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (kept.length < KEPT_BODY) kept += chunk;
        });
        res.on('end', () => finish({ statusCode: res.statusCode ?? null, error: null, body: kept.slice(0, KEPT_BODY) || null }));
        res.on('error', () => finish({ statusCode: res.statusCode ?? null, error: null, body: kept.slice(0, KEPT_BODY) || null }));
      });
      sent.on('error', (err: NodeJS.ErrnoException) => {
        // Once, on a new connection, and only if nothing came back: what Node's documentation
        // advises for kept connections.
        if (retry && !answered && !settled && closedWhileKept(sent, err)) return send(false);
        finish({ statusCode: null, error: err.message === REFUSED ? REFUSED : `${err.code ?? 'error'}: ${err.message}`, body: null });
      });
      sent.end(body);
    };
    send(true);
  });
}
