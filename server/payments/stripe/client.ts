import { AsyncLocalStorage } from 'node:async_hooks';
import Stripe from 'stripe';
import type { StripeSettings } from './settings';

// One client of the official SDK per connected account. The API version is pinned (the
// SDK's own, passed explicitly so an upgrade of the package cannot change what Stripe sends
// us), `maxNetworkRetries: 0` (a retry is our reconciliation's decision, never the SDK's:
// a silent retry would hide an unknown outcome), and requests go through `fetch` so the
// caller's AbortSignal reaches the socket: the SDK takes no signal per request, so the
// signal of the call in progress is carried to our fetch through AsyncLocalStorage.

export const STRIPE_API_VERSION = '2026-10-28.endive';

const callSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` aborting every Stripe request it makes. */
export const withSignal = <T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> => callSignal.run(signal, fn);

const fetchWithCallSignal: typeof fetch = (input, init) => {
  const signal = callSignal.getStore();
  const signals = [init?.signal, signal].filter((s): s is AbortSignal => s != null);
  return fetch(input, { ...init, signal: signals.length > 0 ? AbortSignal.any(signals) : null });
};

/** A client of `settings.apiUrl`; `host: 'files'` of `settings.filesUrl` (the SDK sends uploads to the one host a client has, once it is set). */
export function stripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiUrl' | 'filesUrl' | 'timeoutMs'>, host: 'api' | 'files' = 'api'): Stripe {
  const url = new URL(host === 'files' ? settings.filesUrl : settings.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 0,
    timeout: settings.timeoutMs,
    telemetry: false,
    httpClient: Stripe.createFetchHttpClient(fetchWithCallSignal),
  });
}
