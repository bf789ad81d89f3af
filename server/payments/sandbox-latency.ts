import { setTimeout as sleep } from 'node:timers/promises';
import type { Gateway } from './gateway';

// The sandbox's simulated latency (SANDBOX_LATENCY_MS): a real processor answers over the
// network in a few hundred milliseconds, the sandbox in this process at once. With the
// setting, each of a sandbox gateway's calls to its "processor" first waits that long,
// and is cut short by the call's signal as a network call would be (a timeout is then
// the same unknown outcome). For measuring (the bench's "latency on" runs, docs/performance.md)
// and for trying a shop as its customers will feel it; 0, the default, adds nothing.

/** The calls that would cross the network to a processor. */
const CALLS = ['pay', 'capture', 'refund', 'void', 'resume', 'return', 'charge', 'confirm', 'confirmed', 'store', 'customer', 'lookup'] as const;

type Call = (input: { signal?: AbortSignal }) => Promise<unknown>;

/** `gateway`, each processor call of it `ms` later; itself when `ms` is 0. */
export function withLatency(gateway: Gateway, ms: number): Gateway {
  if (ms <= 0) return gateway;
  const slowed: Record<string, unknown> = { ...gateway };
  for (const name of CALLS) {
    const call = gateway[name] as Call | undefined;
    if (!call) continue;
    slowed[name] = async (input: { signal?: AbortSignal }) => {
      await sleep(ms, undefined, { signal: input.signal });
      return call.call(gateway, input);
    };
  }
  return slowed as unknown as Gateway;
}
