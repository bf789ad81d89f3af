import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Db, inTransaction, Rollback, rollbackOn } from '../store/db';
import { claimKey, completeKey, isKeyTaken, KEY_ABANDONED_MS, purgeIdempotencyKeys, recordKeyAtCommit, releaseKey, TTL_MS } from '../store/idempotency';

// The Idempotency-Key protocol, once for every front door (the API's keyed POSTs, the
// dashboard's confirmed money actions): a key is claimed, then its stored answer replayed,
// a different request under it refused, a running one waited for or reported, or the work
// run once and its answer recorded. Each front door maps the outcome to its own answer
// (problem+json, a page); what it means for two requests to be the same (requestHash) and
// what an answer looks like (status and body) are the front door's.

/** An answer as stored for replays. */
export interface Recorded {
  status: number;
  body: string;
}

/**
 * What becomes of the key once the work has run: its answer recorded for every repeat,
 * the key freed so a corrected request can use it again, or left running for the claim of
 * the work's gateway call to expire first (the movement it started may still be under way).
 */
export type KeyEnd = Recorded | 'release' | 'keep';

export interface Command<T> {
  environmentId: string;
  key: string;
  /** The same request under the same key hashes the same; another one is a mismatch. */
  requestHash: string;
  now: () => Date;
  /**
   * How many gateway calls the work can make. With none it runs inside the database
   * transaction that records its answer, so both commit or neither does; with any it runs
   * outside (a gateway call is never inside a transaction), and the key is not taken over
   * as abandoned until each call could have used its whole claim.
   */
  gatewayCalls: number;
  paymentClaimMs: number;
  /** How long a repeat waits for a running first request before it answers in_flight (a double-clicked form); default 0. */
  waitMs?: number;
  /** The work on `db` (inside a transaction when it makes no gateway call); `binding` names its gateway calls, the same after a takeover. */
  run(db: Db, binding: string): Promise<{ value: T; end: KeyEnd }>;
  /**
   * What the key becomes when the work throws (the error then goes on): by default it is
   * released; an error whose database work stands (a declined charge) is recorded with it.
   */
  failed?(err: unknown): KeyEnd;
}

/** One outcome per use case: `T` is what its work answered. */
export type CommandOutcome<T> =
  | { kind: 'ran'; value: T }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_flight'; retryAfterMs: number };

const POLL_MS = 200;

type Owned = { environmentId: string; key: string; owner: string };

async function claimWaiting<T>(db: Db, command: Command<T>) {
  const abandonedAfterMs = KEY_ABANDONED_MS + command.gatewayCalls * command.paymentClaimMs;
  const claimOnce = () => claimKey(db, { environmentId: command.environmentId, key: command.key, requestHash: command.requestHash, now: command.now(), abandonedAfterMs });
  let claim = await claimOnce();
  for (let waited = 0; claim.kind === 'in_flight' && waited < (command.waitMs ?? 0); waited += POLL_MS) {
    await sleep(POLL_MS);
    claim = await claimOnce();
  }
  return claim;
}

async function end(db: Db, owned: Owned, how: KeyEnd): Promise<void> {
  if (how === 'release') await releaseKey(db, owned);
  else if (how !== 'keep') await completeKey(db, { ...owned, ...how });
}

/** Outside any transaction: the work (and its gateway calls), then its answer recorded. */
async function runOutside<T>(db: Db, command: Command<T>, owned: Owned, binding: string): Promise<T> {
  let ran: { value: T; end: KeyEnd };
  try {
    ran = await command.run(db, binding);
  } catch (err) {
    await end(db, owned, command.failed?.(err) ?? 'release');
    throw err;
  }
  await end(db, owned, ran.end);
  return ran.value;
}

/** Inside one transaction with its answer: after a crash either both exist (a repeat replays) or neither (a repeat runs once). */
async function runRecorded<T>(db: Db, command: Command<T>, owned: Owned, binding: string): Promise<T> {
  let recorded: { err: unknown } | undefined;
  let ran: { value: T; end: KeyEnd } | undefined;
  let rolledBack: 'release' | 'keep' = 'release';
  try {
    await inTransaction(db, async (trx) => {
      try {
        ran = await command.run(trx, binding);
      } catch (err) {
        const how = command.failed?.(err) ?? 'release';
        if (typeof how === 'string') {
          rolledBack = how;
          throw err;
        }
        recorded = { err };
        return end(trx, owned, how);
      }
      await end(trx, owned, ran.end);
    });
  } catch (err) {
    // Rolled back: nothing of the work stands.
    await end(db, owned, rolledBack);
    throw err;
  }
  if (recorded) throw recorded.err;
  return ran!.value;
}

/**
 * A command without gateway calls, first run as if its key were new: the work and its key,
 * recorded done with the answer, in one transaction (one commit, no claim before it). When
 * the key is there already (a repeat, another request under it, a takeover due) the commit
 * fails and nothing stands, and when the work throws everything is rolled back: null, and
 * the protocol runs as for any key: a repeat replays, a claim runs the work again. A repeat
 * sent while the first runs waits for it at the key's insert and replays its answer, rather
 * than answering 409.
 */
async function runFirst<T>(db: Db, command: Command<T>): Promise<{ ran: T } | { threw: unknown } | null> {
  try {
    return await rollbackOn<{ ran: T } | { threw: unknown }, null>(db, async (trx) => {
      let ran: { value: T; end: KeyEnd } | undefined;
      let how: KeyEnd;
      try {
        ran = await command.run(trx, randomUUID());
        how = ran.end;
      } catch (err) {
        // Recorded with its answer, the error's work stands (as runRecorded keeps it).
        how = command.failed?.(err) ?? 'release';
        if (typeof how === 'string') throw new Rollback(null);
        await recordKeyAtCommit(trx, { ...keyOf(command), ...how });
        return { threw: err };
      }
      if (typeof how === 'string') throw new Rollback(null);
      await recordKeyAtCommit(trx, { ...keyOf(command), ...how });
      return { ran: ran.value };
    });
  } catch (err) {
    if (isKeyTaken(err)) return null;
    throw err;
  }
}

const keyOf = (command: Command<unknown>) => ({ environmentId: command.environmentId, key: command.key, requestHash: command.requestHash, now: command.now() });

/** Runs `command` once per key: its work's value, or the stored answer, or why not. */
export async function runIdempotent<T>(db: Db, command: Command<T>): Promise<CommandOutcome<T>> {
  const first = command.gatewayCalls === 0 && !db.isTransaction ? await runFirst(db, command) : null;
  if (first && 'threw' in first) throw first.threw;
  if (first) return { kind: 'ran', value: first.ran };
  const claim = await claimWaiting(db, command);
  if (claim.kind !== 'claimed') return claim;
  const owned = { environmentId: command.environmentId, key: command.key, owner: claim.owner };
  const run = command.gatewayCalls > 0 ? runOutside : runRecorded;
  return { kind: 'ran', value: await run(db, command, owned, claim.binding) };
}

/** Answers kept past their 24 hours (TTL_MS: a repeat no longer replays them) deleted, at most `batch`: the retention job's. */
export const purgeExpiredKeys = (db: Db, now: Date, batch: number): Promise<number> => purgeIdempotencyKeys(db, new Date(now.getTime() - TTL_MS), batch);
