import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { Engine } from '../db';

// One set of versioned migrations for both engines. The only dialect choices are here:
// 64-bit integers are `bigint` on PostgreSQL (SQLite's INTEGER is already 64-bit), and
// SQLite tables are STRICT so a wrong type is an error there too.
export function dialect(engine: Engine) {
  const int = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    engine,
    int: sql.raw(int),
    bytes: sql.raw(engine === 'postgres' ? 'bytea' : 'blob'),
    table<T extends string>(db: Kysely<unknown>, name: T) {
      const builder = db.schema.createTable(name);
      return {
        build(define: (t: CreateTableBuilder<T, never>) => CreateTableBuilder<T, string>) {
          const table = define(builder);
          return engine === 'sqlite' ? table.modifyEnd(sql`strict`) : table;
        },
      };
    },
  };
}

export type Def = ReturnType<typeof dialect>;

/** The columns every tenant-owned table starts with. */
export function owned<T extends string>(t: CreateTableBuilder<T, never>) {
  return t
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
}
