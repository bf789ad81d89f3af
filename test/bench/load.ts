import autocannon from 'autocannon';

// HTTP load with autocannon as a library, always on loopback and always bounded in time:
// a short warm-up (JIT, connection pools, SQLite page cache), then the measured run.

export interface LoadTiming {
  /** Seconds of each measured run. */
  duration: number;
  /** Seconds of the unmeasured warm-up before it. */
  warmup: number;
}

export interface LoadRequest {
  url: string;
  connections: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  connections: number;
  /** Completed requests per second over the measured run. */
  rps: number;
  /** Milliseconds (autocannon records whole milliseconds). */
  p50: number;
  p99: number;
  requests: number;
  /** Connection errors (timeouts included) and non-2xx answers: a correct run has 0. */
  failures: number;
  /**
   * The server process's CPU time per request, ms: what a request costs, and much less
   * sensitive than req/s to other work on the machine. Null without /proc.
   */
  cpuPerRequest: number | null;
}

/** `server.cpuMs`: the CPU clock of the process under load (targets.ts). */
export async function load(request: LoadRequest, timing: LoadTiming, server: { cpuMs(): number | null }): Promise<LoadResult> {
  const options = { ...request, timeout: 10 };
  if (timing.warmup > 0) await autocannon({ ...options, duration: timing.warmup });
  const cpuBefore = server.cpuMs();
  const r = await autocannon({ ...options, duration: timing.duration });
  const cpuAfter = server.cpuMs();
  return {
    connections: request.connections,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.errors + r.non2xx,
    cpuPerRequest: cpuBefore === null || cpuAfter === null || !r.requests.total ? null : (cpuAfter - cpuBefore) / r.requests.total,
  };
}
