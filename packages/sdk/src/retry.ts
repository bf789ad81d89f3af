// The client's fetch: every request goes through here, and is sent again, as it was (the
// same Idempotency-Key included), when its answer says a retry may succeed:
//
// - 429 Too Many Requests: nothing was done, whatever the method;
// - 409 whose problem type is `urn:problem:idempotency-in-flight`: the first request with
//   this key is still running; the retry gets its answer once it has finished (any other
//   409 is a real conflict and is not retried);
// - 500, 502, 503, 504 and network failures (a refused connection, a reset, a timeout),
//   only when repeating the request is safe: GET, HEAD, OPTIONS, PUT, DELETE, or a POST with
//   an Idempotency-Key (every POST of this client has one). A PATCH is not repeated.
//
// The wait is the answer's Retry-After when it has one (seconds or an HTTP date), else an
// exponential backoff with jitter: initialDelayMs × 2^attempt, capped at maxDelayMs, of
// which a random half is waited. A Retry-After longer than maxRetryAfterMs is not waited
// for: the answer is returned as it is (an ApiError for the caller).

/** The problem type of a 409 whose key is still in use by a running request. */
export const IN_FLIGHT = 'urn:problem:idempotency-in-flight';

const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRIED_5XX = new Set([500, 502, 503, 504]);

export interface RetryPolicy {
  /** Retries after the first attempt; 0 sends each request once. */
  maxRetries: number;
  /** The first backoff step, ms. */
  initialDelayMs: number;
  /** The longest backoff step, ms. */
  maxDelayMs: number;
  /** The longest Retry-After the client waits for, ms. */
  maxRetryAfterMs: number;
  /** How long one attempt may take before it is abandoned (and retried if safe), ms. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 60_000,
};

type Fetch = (request: Request) => Promise<Response>;

/** Whether a failed attempt may be sent again. */
async function retryable(response: Response, repeatable: boolean): Promise<boolean> {
  if (response.status === 429) return true;
  if (response.status === 409) {
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { type?: unknown } | undefined;
    return body?.type === IN_FLIGHT;
  }
  return RETRIED_5XX.has(response.status) && repeatable;
}

/** Retry-After in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry number `attempt + 1` when the answer names none. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return step / 2 + random() * (step / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** `send` wrapped with the retries above; each attempt also bounded by `policy.timeoutMs`. */
export function retryingFetch(send: Fetch, policy: RetryPolicy, random: () => number = Math.random): Fetch {
  return async (request) => {
    // Read once, sent as the same bytes on every attempt.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const repeatable = SAFE_TO_REPEAT.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(policy.timeoutMs)]);
      const init = { method: request.method, headers: request.headers, body, signal, redirect: request.redirect };
      let response: Response;
      try {
        response = await send(new Request(request.url, init));
      } catch (error) {
        // The caller's own abort is final; a network failure or a timeout is retried if safe.
        if (request.signal.aborted || !repeatable || attempt >= policy.maxRetries) throw error;
        await sleep(backoffMs(attempt, policy, random), request.signal);
        continue;
      }
      if (attempt >= policy.maxRetries || !(await retryable(response, repeatable))) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoffMs(attempt, policy, random), request.signal);
    }
  };
}
