import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { binDir, freePort, postgresOwner } from './pg-cluster';

// A primary and a streaming standby of a test's own, on random ports, built from the
// installed server's binaries: initdb, pg_basebackup -R, pg_ctl (as the postgres user when
// the tests run as root, as pg-cluster.ts does). For failover tests: stop the primary at
// once, promote the standby.

const run = promisify(execFile);

export interface Node {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  data: string;
}

export interface Replicas {
  primary: Node;
  standby: Node;
  /** `postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/postgres?target_session_attrs=read-write` */
  url: string;
  /** The primary's end without a shutdown checkpoint, as in a crash (`pg_ctl stop -m immediate`). */
  crashPrimary(): Promise<void>;
  stopStandby(): Promise<void>;
  /** Started again and, when `streaming` (the default), waited for until it streams from the primary; without, it replays what it has and waits for one. */
  startStandby(streaming?: boolean): Promise<void>;
  /** Waits until the standby has replayed everything the primary had written when asked. */
  caughtUp(): Promise<void>;
  /** `pg_ctl promote`, waiting until the standby accepts writes. */
  promote(): Promise<void>;
  query<T extends pg.QueryResultRow = any>(node: Node, text: string): Promise<T[]>;
  remove(): Promise<void>;
}

/**
 * A primary and one standby, synchronous when `synchronous` (the primary's
 * `synchronous_standby_names = 's1'` set with ALTER SYSTEM, so the standby's copy of
 * postgresql.auto.conf inherits it, as a real one made by pg_basebackup does).
 */
export async function startReplicas(synchronous: boolean): Promise<Replicas> {
  const bin = await binDir();
  const dir = mkdtempSync(join(tmpdir(), 'checkout-replicas-'));
  const owner = await postgresOwner();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const tool = (name: string, args: string[]) =>
    owner ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args);
  const node = async (name: string): Promise<Node> => {
    const port = await freePort();
    return { port, url: `postgres://postgres@127.0.0.1:${port}/postgres`, data: join(dir, name) };
  };
  const primary = await node('primary');
  const standby = await node('standby');
  const start = (n: Node) =>
    tool('pg_ctl', ['-D', n.data, '-o', `-p ${n.port} -k ${dir} -c listen_addresses=127.0.0.1`, '-w', '-l', `${n.data}.log`, 'start']);
  const query = async <T extends pg.QueryResultRow>(n: Node, text: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: n.url });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  };

  await tool('initdb', ['-D', primary.data, '--auth=trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  await start(primary);
  if (synchronous) {
    await query(primary, "alter system set synchronous_standby_names = 's1'");
    await query(primary, 'select pg_reload_conf()');
  }
  await tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.data, '-R', '--no-sync', '-X', 'stream']);
  // Named s1, so the primary counts it as its synchronous standby.
  appendFileSync(join(standby.data, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=s1'\n`);
  await start(standby);
  const streaming = async () => {
    for (let i = 0; i < 300; i++) {
      const rows = await query<{ sync_state: string }>(primary, "select sync_state from pg_stat_replication where application_name = 's1'");
      if (rows[0] && rows[0].sync_state === (synchronous ? 'sync' : 'async')) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the standby did not start streaming');
  };
  await streaming();
  return {
    primary,
    standby,
    url: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
    query,
    crashPrimary: async () => void (await tool('pg_ctl', ['-D', primary.data, '-m', 'immediate', '-w', 'stop'])),
    stopStandby: async () => void (await tool('pg_ctl', ['-D', standby.data, '-m', 'fast', '-w', 'stop'])),
    startStandby: async (stream = true) => {
      await start(standby);
      if (stream) await streaming();
    },
    async caughtUp() {
      const { lsn } = (await query<{ lsn: string }>(primary, 'select pg_current_wal_lsn()::text as lsn'))[0]!;
      for (let i = 0; i < 300; i++) {
        const rows = await query<{ done: boolean }>(primary, `select replay_lsn >= '${lsn}'::pg_lsn as done from pg_stat_replication where application_name = 's1'`);
        if (rows[0]?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the standby did not catch up');
    },
    promote: async () => void (await tool('pg_ctl', ['-D', standby.data, '-w', 'promote'])),
    async remove() {
      for (const n of [primary, standby]) await tool('pg_ctl', ['-D', n.data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
