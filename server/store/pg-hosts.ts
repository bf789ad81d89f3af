import type pg from 'pg';
import { pgModule } from './pg-module';

// libpq's multi-host DATABASE_URL, `postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`,
// which node-postgres refuses (`TypeError: Invalid URL`). The hosts are tried as libpq does
// with read-write: the one that is the primary is kept, with a pool of its own; when a
// connection to it is lost or it answers as read-only, the primary is looked for again.
// For use behind a failover manager that fences the old primary (docs/operations.md, "High
// availability"): this finds the one writable host, it does not decide which one should be.

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;
const PRIMARY_ONLY = new Set(['read-write', 'primary']);

/** `rest` (`/db?a=1&b=2`) without the query parameter `name`. */
function withoutParam(rest: string, name: string): string {
  const at = rest.indexOf('?');
  if (at < 0) return rest;
  const kept = rest.slice(at + 1).split('&').filter((p) => p !== '' && p.split('=')[0] !== name);
  return kept.length ? `${rest.slice(0, at)}?${kept.join('&')}` : rest.slice(0, at);
}

/** The value of query parameter `name` in `url`, or null. */
function paramOf(url: string, name: string): string | null {
  const query = url.split('?')[1] ?? '';
  const pair = query.split('&').find((p) => p.split('=')[0] === name);
  return pair === undefined ? null : decodeURIComponent(pair.slice(name.length + 1));
}

/**
 * One connection URL per host of `url`, in its order (a single-host URL comes back as it is,
 * without `target_session_attrs`, which node-postgres does not know).
 */
export function hostUrls(url: string): string[] {
  const parts = URL_PARTS.exec(url);
  if (!parts) return [url];
  const [, scheme, user, hosts, rest] = parts as unknown as [string, string, string | undefined, string, string];
  const path = withoutParam(rest, 'target_session_attrs');
  const credentials = user === undefined ? '' : `${user}@`;
  return hosts.split(',').map((host) => `${scheme}${credentials}${host}${path}`);
}

/** What is wrong with a multi-host URL (an empty host, a session kind other than the primary), or null. */
export function hostsProblem(url: string): string | null {
  const urls = hostUrls(url);
  if (urls.length < 2) return null;
  if (urls.some((u) => URL_PARTS.exec(u)![3] === '')) return 'has an empty host in its host list';
  const attrs = paramOf(url, 'target_session_attrs');
  if (attrs !== null && !PRIMARY_ONLY.has(attrs)) return `target_session_attrs=${attrs}: with several hosts only read-write (the primary) is supported`;
  for (const u of urls) {
    try {
      new URL(u);
    } catch {
      return `host ${URL_PARTS.exec(u)![3]} is not a valid host[:port]`;
    }
  }
  return null;
}

/** `h1:5432`: a host URL's host and port, for logs (never its credentials). */
export const hostOf = (url: string): string => URL_PARTS.exec(url)?.[3] ?? '?';

// A session that says the server went away or is not (any more) the primary: 25006 a write in
// a read-only session, 57P01–57P03 an administrator's or a crash's shutdown, class 08 a
// connection exception; pg reports a lost socket with plain Errors and no code.
const NOT_PRIMARY_STATES = /^(08|57P0[123]$|25006$)/;
const LOST_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Connection ended)/;

export function meansPrimaryLost(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return NOT_PRIMARY_STATES.test(code) || code === 'ECONNREFUSED' || code === 'ECONNRESET';
  return typeof message === 'string' && LOST_MESSAGES.test(message);
}

interface Chosen {
  url: string;
  pool: pg.Pool;
}

export interface PrimaryPoolOptions {
  urls: string[];
  /** A pool to one host (the service's usual one, with its listeners). */
  pool(url: string): pg.Pool;
  /** The settings of the one-off connection that asks a host whether it is the primary. */
  probe(url: string): pg.ClientConfig;
  found?(host: string): void;
  lost?(host: string, err: unknown): void;
}

/** No host answered as the primary: class 08, so the request answers 503 and the next one looks again. */
class NoPrimary extends Error {
  readonly code = '08001';
  constructor(reasons: string[]) {
    super(`no primary among the database hosts (${reasons.join('; ')})`);
  }
}

async function isPrimary(config: pg.ClientConfig): Promise<boolean> {
  const client = new (pgModule().Client)(config);
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ standby: boolean; ro: string }>(
      "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as ro",
    );
    return !rows[0]!.standby && rows[0]!.ro === 'off';
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The pool of whichever host is the primary now: connect() lends a client of it, looking
 * for the primary first when there is none yet or the last one was lost. Every host is
 * asked at once and the first to answer as the primary wins.
 */
export class PrimaryPool {
  #current: Chosen | null = null;
  #finding: Promise<Chosen> | null = null;
  readonly #of = new WeakMap<pg.ClientBase, Chosen>();
  #ended = false;

  constructor(private readonly o: PrimaryPoolOptions) {}

  async connect(): Promise<pg.PoolClient> {
    const chosen = this.#current ?? (await this.#find());
    try {
      const client = await chosen.pool.connect();
      this.#of.set(client, chosen);
      return client;
    } catch (err) {
      this.#lose(chosen, err);
      throw err;
    }
  }

  /** A client of this pool failed: when that says the primary is gone, the next connect looks again. */
  failed(client: pg.ClientBase, err: unknown): void {
    const chosen = this.#of.get(client);
    if (chosen && meansPrimaryLost(err)) this.#lose(chosen, err);
  }

  stats() {
    const pool = this.#current?.pool;
    return { total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 };
  }

  async end(): Promise<void> {
    this.#ended = true;
    const current = this.#current;
    this.#current = null;
    await current?.pool.end();
  }

  #lose(chosen: Chosen, err: unknown): void {
    if (this.#current !== chosen) return;
    this.#current = null;
    this.o.lost?.(hostOf(chosen.url), err);
    // Clients lent out come back and are dropped; the idle ones go now.
    chosen.pool.end().catch(() => {});
  }

  #find(): Promise<Chosen> {
    this.#finding ??= this.#look().finally(() => (this.#finding = null));
    return this.#finding;
  }

  async #look(): Promise<Chosen> {
    if (this.#ended) throw new Error('the database pool has been closed');
    const reasons: string[] = [];
    const asks = this.o.urls.map(async (url) => {
      const primary = await isPrimary(this.o.probe(url)).catch((err: Error) => {
        reasons.push(`${hostOf(url)}: ${err.message}`);
        throw err;
      });
      if (!primary) {
        reasons.push(`${hostOf(url)}: read-only (a standby)`);
        throw new Error('not the primary');
      }
      return url;
    });
    const url = await Promise.any(asks).catch(() => {
      throw new NoPrimary(reasons);
    });
    const pool = this.o.pool(url);
    pool.on('connect', (client) => client.on('error', (err) => this.failed(client, err)));
    const chosen = { url, pool };
    this.#current = chosen;
    this.o.found?.(hostOf(url));
    return chosen;
  }
}
