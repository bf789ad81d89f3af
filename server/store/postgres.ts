import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { Database, DatabaseOptions } from './db';
import { migrationDialect } from './migration-lock';
import { inOpenTransaction, trackTransactions } from './open-transaction';
import { hostUrls, PrimaryPool } from './pg-hosts';
import { pgModule } from './pg-module';
import { pipelined } from './pg-pipeline';
import { planChanged, prepared } from './pg-prepared';
import { timeoutsWatch } from './pg-timeouts';
import type { Tables } from './schema';
import type { SealedSecrets } from './sealed-secrets';

// The PostgreSQL side of openDatabase: a pool per DATABASE_URL host (one host as before, or
// the primary among several, pg-hosts.ts), with the timeouts sent at connect unless a
// transaction pooler is in front (DATABASE_POOLER=transaction: then they are the role's, and
// checked, pg-timeouts.ts), and every commit watched for a cancelled wait for a synchronous
// standby.

/**
 * PostgreSQL committed locally but stopped waiting for the synchronous standby ("canceling
 * wait for synchronous replication … The transaction has already committed locally, but
 * might not have been replicated"): on a failover now the write may be gone. Class 08
 * (08007, transaction resolution unknown), so a caller treats it as it treats a connection
 * lost at commit: the request answers 503 and a money step stays pending for reconciliation.
 */
class UnknownDurability extends Error {
  readonly code = '08007';
  constructor(readonly notice: string) {
    super(`commit of unknown durability: ${notice}`);
  }
}

const SYNC_WAIT_CANCELLED = /wait for synchronous replication/i;

/** The notices of a cancelled synchronous-replication wait each client received, until its query ends. */
const unsure = new WeakMap<pg.ClientBase, string>();

interface Source {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
  failed(client: pg.ClientBase, err: unknown): void;
  stats(): { total: number; idle: number; waiting: number };
}

function hostPool(url: string, o: DatabaseOptions, max: number): pg.Pool {
  const statementMs = o.dbStatementTimeoutMs ?? 30_000;
  // Sent at connect on a direct connection. PgBouncer refuses these startup parameters
  // ("unsupported startup parameter"), or drops them when told to ignore them.
  const timeouts =
    o.databasePooler === 'transaction'
      ? {}
      : {
          statement_timeout: statementMs,
          // A transaction left open (a bug, a stalled process) would hold its row locks for ever.
          idle_in_transaction_session_timeout: 2 * statementMs,
        };
  const pool = new (pgModule().Pool)({
    connectionString: url,
    max,
    // Waiting longer for a connection than a client waits for an answer helps nobody:
    // the request fails fast (503) and the pool keeps serving the others.
    connectionTimeoutMillis: o.dbAcquireTimeoutMs ?? 5_000,
    // A statement may be written before the one before it has answered (pg-pipeline.ts).
    pipeline: true,
    ...timeouts,
  });
  // Every client listens for its own end, for as long as it lives: pg-pool listens only
  // while a client is idle, and a client lent out (a transaction between two statements)
  // whose session ends would throw. Its next statement then fails, and the pool discards
  // it when it comes back; an idle one is discarded at once. A session's end is told once
  // (pg emits the server's notice, then the closed socket). The pool re-emits an idle
  // client's error: already told, so its listener only keeps the pool from throwing.
  const lost = o.onConnectionError ?? (() => {});
  pool.on('connect', (client) => {
    let told = false;
    client.on('error', (err) => {
      if (!told) lost(err);
      told = true;
    });
    client.on('notice', (notice) => {
      if (SYNC_WAIT_CANCELLED.test(notice.message ?? '')) unsure.set(client, [notice.message, notice.detail].filter(Boolean).join(': '));
    });
  });
  pool.on('error', () => {});
  return pool;
}

function source(url: string, o: DatabaseOptions, max: number): Source {
  const urls = hostUrls(url);
  if (urls.length === 1) {
    const pool = hostPool(urls[0]!, o, max);
    const stats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { connect: () => pool.connect(), end: () => pool.end(), failed: () => {}, stats };
  }
  const statementMs = o.dbStatementTimeoutMs ?? 30_000;
  const primary = new PrimaryPool({
    urls,
    pool: (u) => hostPool(u, o, max),
    probe: (u) => ({
      connectionString: u,
      connectionTimeoutMillis: o.dbAcquireTimeoutMs ?? 5_000,
      ...(o.databasePooler === 'transaction' ? {} : { statement_timeout: statementMs }),
    }),
    found: (host) => o.log?.info({ host }, 'database primary found'),
    lost: (host, err) => o.log?.warn({ host, err }, 'database primary lost; looking for the primary among the hosts again'),
  });
  return primary;
}

/** What Kysely gets: the source's clients, each query watched for a lost primary and an unsure commit, pipelined (pg-pipeline.ts). */
function kyselyPool(src: Source, o: DatabaseOptions, ownsSource: boolean): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const named = o.databasePooler !== 'transaction';
  const send = async (client: pg.PoolClient, text: string, values: unknown[]): Promise<pg.QueryResult> => {
    if (!named) return client.query(text, values);
    try {
      return await client.query(prepared(client, text, values));
    } catch (err) {
      if (!planChanged(client, err)?.retry) throw err;
      return client.query(prepared(client, text, values));
    }
  };
  const pipeline = pipelined(send);
  const watch = (client: pg.PoolClient): PostgresPoolClient => ({
    async query(text: string, values: readonly unknown[]) {
      const kept = pipeline.answerKept(client, text, values);
      if (kept) return kept;
      unsure.delete(client);
      try {
        const result = await pipeline.send(client, text, values as unknown[]);
        const notice = unsure.get(client);
        if (notice !== undefined) throw new UnknownDurability(notice);
        return result;
      } catch (err) {
        const notice = unsure.get(client);
        unsure.delete(client);
        if (notice !== undefined) o.log?.warn({ notice, statement: text.slice(0, 40) }, 'database commit of unknown durability: committed on the primary, maybe not on the synchronous standby');
        if (!(err instanceof UnknownDurability)) src.failed(client, err);
        throw err;
      }
    },
    release: () => {
      // Never left for the client's next borrower (Kysely ends every transaction it begins).
      pipeline.forget(client);
      client.release();
    },
  }) as unknown as PostgresPoolClient;
  return {
    async connect() {
      if (o.strictTransactions && inOpenTransaction()) throw new Error("a pool connection asked inside an open transaction: pass the transaction's db (a full pool of such transactions would wait for ever)");
      const client = await src.connect().catch((err: Error) => {
        if (!/unsupported startup parameter/.test(err.message)) throw err;
        throw Object.assign(new Error(`${err.message}: a transaction pooler (PgBouncer) is in front; set DATABASE_POOLER=transaction (docs/operations.md#pgbouncer)`), { code: (err as { code?: string }).code });
      });
      let w = wrapped.get(client);
      if (!w) wrapped.set(client, (w = watch(client)));
      return w;
    },
    end: () => (ownsSource ? src.end() : Promise.resolve()),
  };
}

export function openPostgres(url: string, o: DatabaseOptions, secrets: SealedSecrets): Database {
  const src = source(url, o, 10);
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: kyselyPool(src, o, true) }), plugins: [secrets] });
  if (o.strictTransactions) trackTransactions(db);
  const statementMs = o.dbStatementTimeoutMs ?? 30_000;
  return {
    db,
    engine: 'postgres',
    secrets,
    changeStamp: () => null,
    pool: () => src.stats(),
    timeouts: timeoutsWatch(db, statementMs),
    // Over MIGRATION_DATABASE_URL (a direct connection, past the pooler) when set, else over
    // this pool; either way under a lock that ends with the migration's transaction.
    migrations() {
      const own = o.migrationDatabaseUrl ? source(o.migrationDatabaseUrl, { ...o, databasePooler: 'none' }, 1) : null;
      const pool = kyselyPool(own ?? src, o, own !== null);
      return new Kysely<Tables>({ dialect: migrationDialect({ pool }), plugins: [secrets] });
    },
    close: () => db.destroy(),
  };
}
