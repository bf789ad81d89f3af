import type { Db } from '../store/db';
import { keepSandboxEntry, sandboxEntry } from '../store/sandbox-books';
import type { ActionResult, LookupResult, SettledResult } from './gateway';

// Where the sandbox processor keeps what it did for each of our references (SANDBOX_BOOKS).
// `database` (the default): in its own table (migration 141), so every process, and a
// process after a restart, finds a charge another made, as a real processor's lookup
// would. `memory`: in the process that made the call, forgotten on a restart, so the
// reconciliation then releases it: a processor whose books are independent of ours, which
// the fault matrix and the payment benchmark run with (docs/operations.md).

type Answer = SettledResult | ActionResult;

export interface SandboxBooks {
  /** The first answer for `reference`: `act`'s, kept, unless the books hold one already. */
  once<T extends Answer>(reference: string, act: () => T): Promise<T>;
  /** What the books say the sandbox did for `reference`. */
  lookup(reference: string): Promise<LookupResult>;
}

/** References a process keeps in memory books; the oldest are forgotten first. */
const MEMORY = 50_000;

export function memoryBooks(): SandboxBooks {
  const done = new Map<string, { answer: Answer; found: LookupResult }>();
  return {
    async once<T extends Answer>(reference: string, act: () => T): Promise<T> {
      const before = done.get(reference);
      if (before) return before.answer as T;
      const answer = act();
      done.set(reference, { answer, found: lookupOf(answer) });
      if (done.size > MEMORY) done.delete(done.keys().next().value!);
      return answer;
    },
    lookup: async (reference) => done.get(reference)?.found ?? { status: 'not_found' },
  };
}

/**
 * Books in the database, written on the pool as the processor acts, never inside our
 * transaction: if our record is lost, the sandbox has still charged. `act` only decides the
 * answer (it moves nothing), so deciding it before the insert and keeping the first is
 * acting once, whichever process asks first.
 */
export function databaseBooks(db: Db, now: () => Date): SandboxBooks {
  return {
    async once<T extends Answer>(reference: string, act: () => T): Promise<T> {
      const answer = act();
      const kept = await keepSandboxEntry(db, { reference, answer: JSON.stringify(answer), found: JSON.stringify(lookupOf(answer)), created_at: now().toISOString() });
      return JSON.parse(kept.answer) as T;
    },
    async lookup(reference) {
      const entry = await sandboxEntry(db, reference);
      return entry ? (JSON.parse(entry.found) as LookupResult) : { status: 'not_found' };
    },
  };
}

function lookupOf(answer: Answer): LookupResult {
  if ('ok' in answer) return answer.ok ? { status: 'succeeded', reference: answer.reference, card: null } : { status: 'failed', reason: 'refused', card: null };
  const authentication = answer.authentication ? { authentication: answer.authentication } : {};
  if (answer.outcome === 'approved') return { status: 'succeeded', reference: answer.reference, card: answer.card, ...authentication };
  return { status: 'failed', reason: answer.outcome, card: answer.card, ...authentication };
}
