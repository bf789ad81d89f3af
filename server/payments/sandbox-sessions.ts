import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../store/db';
import { keepSandboxSession, sandboxSession } from '../store/sandbox-sessions';
import { serverSecret } from '../store/secrets';

// What the sandbox processor keeps between a customer's steps: a redirect's page, an issuer's
// challenge, and the key its redirect's returns are signed with. Beside its books
// (SANDBOX_BOOKS, sandbox-books.ts): with `database` books in its own table (migration 143)
// and under a server secret every process on the database shares, so a customer whose
// steps land on different processes pays as on one; with `memory` books in the process
// that opened them, as the fault matrix expects: another process or a restart knows none,
// and the customer pays again.

/** A challenge the issuer asked: what the payment does once the customer answers. */
export const challengeSession = z.object({
  reference: z.string(),
  card: z.object({ brand: z.string().nullable(), last4: z.string().nullable(), expMonth: z.number().nullable(), expYear: z.number().nullable() }),
  issuerDeclines: z.boolean(),
});

/** A redirect's page: where its Approve and Reject post. */
export const redirectSession = z.object({ returnUrl: z.url() });

export interface SandboxSessions {
  /** Opens the session `id` (the processor's id) with `state`, replacing one of that id. */
  open(id: string, state: z.infer<typeof challengeSession> | z.infer<typeof redirectSession>): Promise<void>;
  /** The session `id` as `schema` reads it; null if unknown here or not of that kind. */
  find<T>(id: string, schema: z.ZodType<T>): Promise<T | null>;
  /** The key the redirect's returns are signed with. */
  signingKey(): Promise<string>;
}

/** Sessions a process keeps in memory; the oldest are forgotten first. */
const MEMORY = 50_000;

export function memorySessions(): SandboxSessions {
  const open = new Map<string, unknown>();
  const key = randomBytes(32).toString('base64url');
  return {
    async open(id, state) {
      open.delete(id);
      open.set(id, state);
      if (open.size > MEMORY) open.delete(open.keys().next().value!);
    },
    find: async (id, schema) => schema.safeParse(open.get(id)).data ?? null,
    signingKey: async () => key,
  };
}

/** Sessions in the sandbox's table, written on the pool like its books. */
export function databaseSessions(db: Db, now: () => Date): SandboxSessions {
  let key: Promise<string> | undefined;
  return {
    open: (id, state) => keepSandboxSession(db, { id, state: JSON.stringify(state), created_at: now().toISOString() }),
    async find(id, schema) {
      const row = await sandboxSession(db, id);
      return row ? (schema.safeParse(JSON.parse(row.state)).data ?? null) : null;
    },
    signingKey() {
      // Asked once per process; a failed ask (the database away) is asked again next time.
      key ??= serverSecret(db, 'sandbox-redirect').catch((err: unknown) => {
        key = undefined;
        throw err;
      });
      return key;
    },
  };
}
