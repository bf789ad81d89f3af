import type { Config } from '../config';
import type { RedsysCredentials } from '../store/processors';
import { redsysUrl } from './processor-urls';
import { redsysGateways } from './redsys/gateway';

// The one question asked of Redsys when a terminal is connected, or its key or signature
// version replaced: a query for an order that cannot exist (redsys/query.ts
// `probeQueryService`). It tells whether the bank enabled the query service on the terminal,
// which is stored: without it an operation of unknown outcome goes to `attention`, never to
// Redsys again (docs/processors.md "Operations that are not idempotent"). It also tells a key
// or a terminal Redsys refuses, by the error codes of Redsys's published list.

export type RedsysCheck =
  | { ok: true; queryService: boolean }
  | { ok: false; reason: 'refused'; errors: { path: string; message: string }[] }
  | { ok: false; reason: 'unreachable'; message: string };

/** Redsys's codes that refuse the terminal itself, not the query service: a signature that does not verify, a terminal it does not know. */
const REFUSED: Record<string, { path: string; message: string }[]> = {
  SIS0042: [{ path: 'secret_key', message: 'Redsys refused the signature: the key or the signature version is not this terminal’s' }],
  SIS0026: [
    { path: 'merchant_code', message: 'Redsys does not know this merchant code and terminal' },
    { path: 'terminal', message: 'Redsys does not know this merchant code and terminal' },
  ],
};

export async function checkRedsysTerminal(config: Config, live: boolean, credentials: Omit<RedsysCredentials, 'query_service'>): Promise<RedsysCheck> {
  const [card] = redsysGateways({ ...credentials, live, apiUrl: redsysUrl(config, live), timeoutMs: config.gatewayTimeoutMs });
  try {
    const probe = await card.probeQueryService({ signal: AbortSignal.timeout(config.gatewayTimeoutMs) });
    const refused = probe.errorCode ? REFUSED[probe.errorCode] : undefined;
    return refused ? { ok: false, reason: 'refused', errors: refused } : { ok: true, queryService: probe.available };
  } catch {
    return { ok: false, reason: 'unreachable', message: 'Redsys did not answer' };
  }
}
