import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address';

// One POST of a notification. The address is resolved here and checked before the
// connection is made to that very address, so a name that resolves differently a moment
// later (DNS rebinding) cannot slip through; the socket's peer is checked once more.
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
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: DeliveryResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(target, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'payment-service-webhooks/1',
      },
      ...(opts.allowPrivate ? {} : { lookup: checkedLookup() }),
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ statusCode: null, error: `no answer within ${opts.timeoutMs / 1000} s`, body: null });
    }, opts.timeoutMs);
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        if (!opts.allowPrivate && !isPublicAddress(socket.remoteAddress ?? '')) {
          req.destroy();
          finish({ statusCode: null, error: REFUSED, body: null });
        }
      });
    });
    req.on('response', (res) => {
      let kept = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (kept.length < KEPT_BODY) kept += chunk;
      });
      res.on('end', () => finish({ statusCode: res.statusCode ?? null, error: null, body: kept.slice(0, KEPT_BODY) || null }));
      res.on('error', () => finish({ statusCode: res.statusCode ?? null, error: null, body: kept.slice(0, KEPT_BODY) || null }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, error: err.message === REFUSED ? REFUSED : `${err.code ?? 'error'}: ${err.message}`, body: null });
    });
    req.end(body);
  });
}
