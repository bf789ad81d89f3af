import { idempotencyMismatch } from './errors';

// Stripe's idempotent requests (one account: the double's books are shared by every key): the first answer of an endpoint that started
// executing is saved under its `Idempotency-Key` for 24 hours, whatever it was (a success, a
// decline, a 400 of the endpoint, a 500: "including 500 errors"), and a request with the
// same key and the same method, path and parameters gets it again, status and body, with
// `Idempotent-Replayed: true`. The same key with anything else is a 400 `idempotency_error`.
// A request refused before executing (its parameters) saves nothing.

const DAY_SECONDS = 24 * 3600;

export interface SavedAnswer {
  status: number;
  body: unknown;
}

interface Saved extends SavedAnswer {
  request: string;
  at: number;
}

export function idempotencyKeys(now: () => number) {
  const saved = new Map<string, Saved>();
  return {
    /** The saved answer to replay, or null when the key is new (or older than 24 hours); a refusal when it was used for another request. */
    replay(key: string, request: string): SavedAnswer | null {
      const found = saved.get(key);
      if (!found || now() - found.at >= DAY_SECONDS) return null;
      if (found.request !== request) throw idempotencyMismatch(key);
      return { status: found.status, body: found.body };
    },
    save(key: string, request: string, answer: SavedAnswer): void {
      saved.set(key, { ...answer, request, at: now() });
    },
  };
}
