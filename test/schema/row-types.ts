import { rmSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import ts from 'typescript';
import { databaseUrl, migratedDataDir, migratedPostgresTemplate, withClient } from '../database-template';

// Issue 48: the row types of server/store/schema.ts are written by hand beside the
// migrations, and nothing compared the two. This check (npm run lint:schema, part of
// `npm run checks`) migrates a database and compares every table of `Tables` with it, on
// SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL: the same columns, a column the
// database may leave null typed with `null`, and the kind of value (text, integer, bytes).

type Kind = 'text' | 'integer' | 'bytes';
interface Column {
  kind: Kind;
  nullable: boolean;
}
type Shape = Map<string, Map<string, Column>>;

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA = join(ROOT, 'server', 'store', 'schema.ts');

/** What the row types say: table → column → kind and whether null is allowed. */
function declaredShape(): { shape: Shape; problems: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  const program = ts.createProgram([SCHEMA], config!.options);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(SCHEMA)!;
  const tables = file.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Tables');
  if (!tables) throw new Error('no Tables interface in server/store/schema.ts');
  const shape: Shape = new Map();
  const problems: string[] = [];
  for (const table of checker.getPropertiesOfType(checker.getTypeAtLocation(tables))) {
    const columns = new Map<string, Column>();
    const rowType = checker.getTypeOfSymbolAtLocation(table, tables);
    for (const column of checker.getPropertiesOfType(rowType)) {
      const type = checker.getTypeOfSymbolAtLocation(column, tables);
      const parts = type.isUnion() ? type.types : [type];
      const nullable = parts.some((p) => p.flags & ts.TypeFlags.Null);
      const kinds = new Set<Kind | string>();
      for (const p of parts) {
        if (p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) continue;
        if (p.flags & ts.TypeFlags.StringLike) kinds.add('text');
        else if (p.flags & ts.TypeFlags.NumberLike) kinds.add('integer');
        else if (p.symbol?.name === 'Uint8Array') kinds.add('bytes');
        else kinds.add(checker.typeToString(p));
      }
      const [kind, ...more] = [...kinds];
      if (more.length > 0 || !['text', 'integer', 'bytes'].includes(kind!)) {
        problems.push(`${table.name}.${column.name}: type ${checker.typeToString(type)} is not one of text, integer or bytes`);
        continue;
      }
      columns.set(column.name, { kind: kind as Kind, nullable });
    }
    shape.set(table.name, columns);
  }
  return { shape, problems };
}

/** The kinds each engine's declared column types store. */
const SQLITE_KINDS: Record<string, Kind> = { text: 'text', integer: 'integer', blob: 'bytes' };
const POSTGRES_KINDS: Record<string, Kind> = { text: 'text', bigint: 'integer', integer: 'integer', smallint: 'integer', bytea: 'bytes' };

// The migrator's own bookkeeping, which no query of ours reads.
const MIGRATOR_TABLES = /^kysely_migration/;
// Tables with no row type on purpose, by engine. rate_limits: the API limiter's unlogged
// table on PostgreSQL (store/rate-limits.ts, raw SQL with float8 times); SQLite keeps
// those counters in memory.
const UNTYPED: Record<string, string[]> = { sqlite: [], postgres: ['rate_limits'] };

function sqliteShape(file: string): Shape {
  const db = new SQLite(file, { readonly: true });
  try {
    const shape: Shape = new Map();
    const tables = db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
    for (const table of tables.filter((t) => !MIGRATOR_TABLES.test(t))) {
      const rows = db.prepare(`select name, type, "notnull", pk from pragma_table_info(?)`).all(table) as { name: string; type: string; notnull: number; pk: number }[];
      // A lone INTEGER PRIMARY KEY is the rowid: never null, whatever notnull says.
      shape.set(table, new Map(rows.map((r) => [r.name, { kind: SQLITE_KINDS[r.type.toLowerCase()] ?? (r.type as Kind), nullable: r.notnull === 0 && r.pk === 0 }])));
    }
    return shape;
  } finally {
    db.close();
  }
}

async function postgresShape(url: string): Promise<Shape> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = current_schema()`,
    );
    const shape: Shape = new Map();
    for (const r of rows.filter((r) => !MIGRATOR_TABLES.test(r.table_name))) {
      const columns = shape.get(r.table_name) ?? new Map<string, Column>();
      columns.set(r.column_name, { kind: POSTGRES_KINDS[r.data_type] ?? (r.data_type as Kind), nullable: r.is_nullable === 'YES' });
      shape.set(r.table_name, columns);
    }
    return shape;
  });
}

/** Every difference between the row types and one engine's migrated tables, in words. */
function differences(engine: string, declared: Shape, actual: Shape): string[] {
  const found: string[] = [];
  for (const [table, columns] of declared) {
    const real = actual.get(table);
    if (!real) {
      found.push(`${engine}: table ${table} is in Tables but not in the migrated database`);
      continue;
    }
    for (const [name, column] of columns) {
      const db = real.get(name);
      if (!db) found.push(`${engine}: ${table}.${name} is in the row type but not in the table`);
      else if (db.kind !== column.kind) found.push(`${engine}: ${table}.${name} is ${column.kind} in the row type, ${db.kind} in the table`);
      else if (db.nullable && !column.nullable) found.push(`${engine}: ${table}.${name} may be null in the table; its row type does not say \`| null\``);
      else if (!db.nullable && column.nullable) found.push(`${engine}: ${table}.${name} is NOT NULL in the table; its row type says \`| null\``);
    }
    for (const name of real.keys()) if (!columns.has(name)) found.push(`${engine}: ${table}.${name} is in the table but not in the row type`);
  }
  for (const table of actual.keys()) if (!declared.has(table) && !UNTYPED[engine]!.includes(table)) found.push(`${engine}: table ${table} is in the migrated database but not in Tables`);
  return found;
}

const { shape: declared, problems } = declaredShape();
const dir = await migratedDataDir('checkout-row-types-');
try {
  problems.push(...differences('sqlite', declared, sqliteShape(join(dir, 'checkout.db'))));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const base = process.env.TEST_DATABASE_URL;
if (base) problems.push(...differences('postgres', declared, await postgresShape(databaseUrl(base, await migratedPostgresTemplate(base)))));
for (const p of problems) console.error(p);
console.log(`row types: ${declared.size} tables of server/store/schema.ts against the migrated database (${base ? 'SQLite and PostgreSQL' : 'SQLite'}): ${problems.length} differences`);
process.exitCode = problems.length > 0 ? 1 : 0;
