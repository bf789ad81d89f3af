import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';

// PostgreSQL's side of the end-to-end payment (payment-flow.ts): a database of its own per
// run, so pg_stat_database counts only the service's work (and this harness's few reads);
// its counters read before and after a run; pgbench's TPC-B on the same cluster.

const run = promisify(execFile);

export interface DbCounters {
  at: number;
  commits: number;
  rollbacks: number;
  rowWrites: number;
  /** pg_current_wal_flush_lsn() as a byte position: the whole cluster's WAL, other databases' included. */
  wal: bigint;
  /** Sum of pg_stat_statements.calls in this database; null when it is not loaded. */
  statements: number | null;
}

export interface OwnDatabase {
  url: string;
  name: string;
  /** Whether pg_stat_statements answers in this database (it must be in shared_preload_libraries). */
  statementsSource: 'pg_stat_statements' | null;
  counters(): Promise<DbCounters>;
  /**
   * The WAL between two snapshots that is this database's (pg_walinspect, PostgreSQL 15's
   * contrib, no preload needed): records touching its relations, and every record of the
   * transactions that wrote them (their commits). Null without pg_walinspect.
   */
  ownWal(a: DbCounters, b: DbCounters): Promise<number | null>;
  drop(): Promise<void>;
}

const lsnText = (n: bigint) => `${(n >> 32n).toString(16).toUpperCase()}/${(n & 0xffffffffn).toString(16).toUpperCase()}`;
const lsn = (text: string) => {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

export async function ownDatabase(baseUrl: string, name: string): Promise<OwnDatabase> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = baseUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  const monitor = new pg.Client({ connectionString: url });
  await monitor.connect();
  let statementsSource: OwnDatabase['statementsSource'] = null;
  try {
    await monitor.query('create extension if not exists pg_stat_statements');
    await monitor.query('select 1 from pg_stat_statements limit 1');
    statementsSource = 'pg_stat_statements';
  } catch {
    // "pg_stat_statements must be loaded via shared_preload_libraries": counted on the wire instead
  }
  const walinspect = await monitor.query('create extension if not exists pg_walinspect').then(() => true, () => false);
  const oid = (await monitor.query<{ oid: number }>('select oid from pg_database where datname = current_database()')).rows[0]!.oid;
  return {
    url,
    name,
    statementsSource,
    async ownWal(a, b) {
      if (!walinspect || b.wal <= a.wal) return walinspect ? 0 : null;
      const { rows } = await monitor.query<{ bytes: string }>(
        `with r as (select xid, record_length, block_ref from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)),
              ours as (select distinct xid from r where block_ref like $3 and xid::text <> '0')
         select coalesce(sum(record_length), 0) as bytes from r where block_ref like $3 or xid in (select xid from ours)`,
        [lsnText(a.wal), lsnText(b.wal), `%/${oid}/%`],
      );
      return Number(rows[0]!.bytes);
    },
    async counters() {
      await monitor.query('select pg_stat_clear_snapshot()');
      const { rows } = await monitor.query<{ c: string; r: string; w: string; lsn: string }>(
        `select xact_commit as c, xact_rollback as r, tup_inserted + tup_updated + tup_deleted as w, pg_current_wal_flush_lsn()::text as lsn
           from pg_stat_database where datname = current_database()`,
      );
      const row = rows[0]!;
      let statements: number | null = null;
      if (statementsSource) {
        const s = await monitor.query<{ n: string | null }>('select sum(calls) as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())');
        statements = Number(s.rows[0]?.n ?? 0);
      }
      return { at: performance.now(), commits: Number(row.c), rollbacks: Number(row.r), rowWrites: Number(row.w), wal: lsn(row.lsn), statements };
    },
    async drop() {
      await monitor.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** b − a, each counter. */
export function counterDelta(a: DbCounters, b: DbCounters) {
  return {
    seconds: (b.at - a.at) / 1000,
    commits: b.commits - a.commits,
    rollbacks: b.rollbacks - a.rollbacks,
    rowWrites: b.rowWrites - a.rowWrites,
    walBytes: Number(b.wal - a.wal),
    statements: a.statements === null || b.statements === null ? null : b.statements - a.statements,
  };
}
export type CounterDelta = ReturnType<typeof counterDelta>;

export interface PgbenchResult {
  tps: number;
  clients: number;
  seconds: number;
  scale: number;
}

/** pgbench's binary: PGBENCH, else PostgreSQL 15's, else the PATH's. */
function pgbenchPath(): string {
  if (process.env.PGBENCH) return process.env.PGBENCH;
  for (const v of [17, 16, 15, 14]) if (existsSync(`/usr/lib/postgresql/${v}/bin/pgbench`)) return `/usr/lib/postgresql/${v}/bin/pgbench`;
  return 'pgbench';
}

/** `pgbench -i -s scale` into the database's public schema, then `-b tpcb-like` for `seconds`. */
export async function pgbenchTpcb(url: string, o: { clients: number; seconds: number; scale: number }): Promise<PgbenchResult> {
  const bin = pgbenchPath();
  await run(bin, ['-i', '-q', '-s', String(o.scale), url]);
  const { stdout } = await run(bin, ['-b', 'tpcb-like', '-c', String(o.clients), '-j', '1', '-T', String(o.seconds), url]);
  const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return { tps: Number(tps), ...o };
}
