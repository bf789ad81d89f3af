import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, postgresOwner } from './pg-cluster';

// Debian's pgbouncer in front of a test's own PostgreSQL (pg-cluster.ts), on a random port,
// in transaction mode: each transaction may get another server connection, as in production
// behind a transaction pooler. Its settings are written here, not taken from the machine.

/** The pgbouncer binary, or null when it is not installed (`apt-get install pgbouncer`; .ci/run does). */
export function pgbouncerBinary(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat('/usr/sbin')) {
    if (dir && existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  }
  return null;
}

export interface Bouncer {
  /** postgres://postgres@127.0.0.1:<port>/<database>, through the pooler. */
  url(database: string): string;
  log(): string;
  stop(): Promise<void>;
}

/** Starts pgbouncer for every database of the server at 127.0.0.1:`serverPort`, and waits until it answers. */
export async function startPgbouncer(serverPort: number): Promise<Bouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed (apt-get install pgbouncer)');
  const dir = mkdtempSync(join(tmpdir(), 'checkout-pgbouncer-'));
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  // pool_mode=transaction, and server_round_robin so that consecutive transactions of one
  // client go to different server connections (without it pgbouncer reuses the last one, and
  // what depends on one session works by luck). The service's timeouts are NOT ignored here:
  // a client that sends them as startup parameters is refused, as with pgbouncer's defaults.
  const ini = `[databases]
* = host=127.0.0.1 port=${serverPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'userlist.txt')}
pool_mode = transaction
server_round_robin = 1
default_pool_size = 4
max_client_conn = 200
ignore_startup_parameters = extra_float_digits
logfile = ${join(dir, 'pgbouncer.log')}
`;
  writeFileSync(join(dir, 'pgbouncer.ini'), ini);
  // pgbouncer refuses to run as root: as root (CI) it runs as the postgres user.
  const owner = await postgresOwner();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  for (const f of ['userlist.txt', 'pgbouncer.ini']) if (owner) chownSync(join(dir, f), owner.uid, owner.gid);
  const child: ChildProcess = spawn(binary, [...(owner ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    try {
      return readFileSync(join(dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return stderr;
    }
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: url('postgres') });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      if (i >= 100 || child.exitCode !== null) throw new Error(`pgbouncer did not start: ${(err as Error).message}\n${stderr}${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
