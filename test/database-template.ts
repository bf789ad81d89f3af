import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../server/store/db';
import { migrate, migrationNames } from '../server/store/migrations';

// A fresh database for a test starts as a copy of one already migrated, instead of running
// every migration again: on SQLite that was 2–3 s of CPU per service start (`migrate` on an
// empty file, 115 migrations), and the tiers start a few hundred
// (docs/performance-changelog.md). The service still runs `migrate` when it starts and
// finds nothing to do; migrating an empty database, and upgrades, stay tested where that
// is the subject (migrations.test.ts, the process tier's first starts on data folders of
// their own).
//
// The copy is named by a hash of the migrations' sources: a change of a migration makes a
// new template, and runs beside each other (the fault matrix beside `npm test`) share one.
// The names this process loaded are hashed too: a process that loaded the list before a
// new migration was added to it, and read the files after, would otherwise store a
// template without that migration under the new sources' name.

const ROOT = join(import.meta.dirname, '..');
const MIGRATIONS = join(ROOT, 'server', 'store', 'migrations');
const CACHE = join(ROOT, 'node_modules', '.cache', 'checkout-db-templates');

const version = (() => {
  const hash = createHash('sha256').update(migrationNames.join('\n'));
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  return hash.digest('hex').slice(0, 12);
})();

let sqliteTemplate: Promise<string> | undefined;

/** The migrated SQLite file of this tree's migrations, made once (then found by every process). */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = join(CACHE, `${version}.db`);
    if (existsSync(file)) return file;
    mkdirSync(CACHE, { recursive: true });
    const dir = mkdtempSync(join(tmpdir(), 'checkout-template-'));
    const copy = `${file}.${process.pid}`;
    try {
      const database = openDatabase({ databaseUrl: null, dataDir: dir });
      await migrate(database);
      // Closed, the file holds everything: the last connection's close checkpoints the WAL.
      await database.close();
      // Copied beside the template's name, then renamed to it, so a process reading the
      // template never finds it half written; a rename alone fails across file systems
      // (EXDEV), and the scratch folder is in memory (test/scratch-in-memory.ts).
      copyFileSync(join(dir, 'checkout.db'), copy);
      renameSync(copy, file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(copy, { force: true });
    }
    return file;
  })();
  return sqliteTemplate;
}

/** A new data folder whose SQLite database is already migrated. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const template = await migratedSqliteFile();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  copyFileSync(template, join(dir, 'checkout.db'));
  return dir;
}

/** One PostgreSQL connection to `url` for `work`, ended after it. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Waits until nobody is connected to `name`: CREATE DATABASE … TEMPLATE refuses otherwise. */
async function sessionsEnded(client: pg.Client, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1', [name]);
    if (Number(rows[0]!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sessions on ${name} did not end`);
}

/** `base` with its database name replaced by `name`. */
export const databaseUrl = (base: string, name: string) => base.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);

let postgresTemplate: Promise<string> | undefined;

/**
 * The name of a migrated PostgreSQL database beside `base`'s, to create fresh ones from
 * (`create database … template …`). Made once per version of the migrations.
 */
export function migratedPostgresTemplate(base: string): Promise<string> {
  postgresTemplate ??= withClient(base, async (admin) => {
    const name = `checkout_template_${version}`;
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return name;
    const building = `${name}_${process.pid}`;
    await admin.query(`create database ${building}`);
    try {
      const database = openDatabase({ databaseUrl: databaseUrl(base, building), dataDir: tmpdir() });
      try {
        await migrate(database);
      } finally {
        await database.close();
      }
      // The closed pool's sessions may linger; the copy needs none left.
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [building]);
      await sessionsEnded(admin, building);
      // Renamed when whole, so nobody copies one half migrated.
      await admin.query(`alter database ${building} rename to ${name}`);
    } catch (err) {
      await admin.query(`drop database if exists ${building} with (force)`);
      // Another process finished one first: theirs is the same.
      const again = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (!again.rowCount) throw err;
    }
    return name;
  });
  return postgresTemplate;
}

/**
 * A PostgreSQL database of its own, next to TEST_DATABASE_URL's, for tests whose
 * background work (deliveries, the expiry sweep, a skewed clock) must not touch other
 * test files' rows in the shared database, nor see theirs. Already migrated (a copy of
 * the template above) unless `empty`, for the tests of the migrations themselves.
 */
export async function freshDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `checkout_notify_${randomBytes(6).toString('hex')}`;
  const admin = <T>(work: (client: pg.Client) => Promise<T>) => withClient(base, work);
  const template = opts.empty ? 'template1' : await migratedPostgresTemplate(base);
  await admin((c) => c.query(`create database ${name} template ${template}`));
  return {
    url: databaseUrl(base, name),
    // A closed pool has sent its clients' goodbyes but their sessions may still be ending:
    // forcing the drop then makes the server kill them, and a client still ending reports
    // that as an error. Wait for the sessions to end; force only what is left after that.
    drop: () =>
      admin(async (c) => {
        await sessionsEnded(c, name).catch(() => undefined);
        await c.query(`drop database if exists ${name} with (force)`);
      }),
  };
}
