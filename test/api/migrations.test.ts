import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db';
import { migrate } from '../../server/store/migrations';

// Upgrades of data written by an older version. SQLite only: its tables are rebuilt where
// PostgreSQL alters a column in place (and the test database there is shared, always at the latest version).

describe('migrations on sqlite', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('009 keeps every product and lets a product have no currency', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      expect(await migrate(database, '007_wallets')).toContain('007_wallets');
      const db = database.db;
      const at = new Date().toISOString();
      await db
        .insertInto('environments')
        .values({ id: 'env', name: 'Shop', public_key: 'pk_migration', secret_hash: 'h', webhook_secret: 'w', allowed_origins: '[]', is_demo: 0, created_at: at })
        .execute();
      const mug = { id: 'p1', environment_id: 'env', created_at: at, updated_at: at, product_id: 'sku', name: 'Mug', description: 'Blue', price: 1234, currency: 'EUR', enabled: 1 };
      await db.insertInto('products').values(mug).execute();
      await expect(db.insertInto('products').values({ ...mug, id: 'p0', currency: null }).execute()).rejects.toThrow(/NOT NULL/);

      expect(await migrate(database)).toEqual(['008_source_charges', '009_product_currency_optional']);
      expect(await db.selectFrom('products').selectAll().execute()).toEqual([mug]);
      await db.insertInto('products').values({ ...mug, id: 'p2', currency: null }).execute();
      expect((await db.selectFrom('products').select('currency').where('id', '=', 'p2').executeTakeFirst())?.currency).toBeNull();
      // Still STRICT, still indexed, still tied to its environment.
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where tbl_name = 'products'`.execute(db);
      expect(rows.map((r) => r.sql).join('\n')).toMatch(/strict[\s\S]*products_env_id/i);
      await expect(db.insertInto('products').values({ ...mug, id: 'p3', environment_id: 'nowhere' }).execute()).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await database.close();
    }
  });
});
