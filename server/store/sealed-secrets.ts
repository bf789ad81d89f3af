import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Db } from './db';
import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

// Secrets the service must read back to use them (the environment's webhook and return
// signing secrets, webhook endpoint secrets, dashboard users' TOTP seeds, the server's own
// secrets, connected processors' credentials) are sealed at rest: AES-256-GCM under SECRETS_KEY, so a copy of the database
// or of a backup does not give them away. A Kysely plugin seals them on every insert and
// update and opens them on every read, so the store modules never see ciphertext. A value
// stored before a key was set (plain text) still reads as it is, and `sealStoredSecrets`
// seals such values (and re-seals values under a previous key) at start.
//
// Envelope: `sealed:v1:<key id>:<base64url of nonce ‖ tag ‖ ciphertext>`; the key id (the
// first 8 hex digits of the key's SHA-256) names the key it needs, so a rotated-out key
// given in SECRETS_KEY_PREVIOUS still opens what it sealed.

/** The sealed columns of each table. */
const SEALED_COLUMNS = {
  environments: ['webhook_secret', 'return_secret', 'previous_return_secret'],
  webhook_endpoints: ['secret', 'previous_secret'],
  user_totp: ['secret'],
  secrets: ['value'],
  // A connected processor's keys (store/processors.ts).
  processors: ['credentials'],
} as const satisfies Record<string, readonly string[]>;

type SealedTable = keyof typeof SEALED_COLUMNS;
const SEALED_BY_TABLE = new Map<string, ReadonlySet<string>>(Object.entries(SEALED_COLUMNS).map(([t, cs]) => [t, new Set<string>(cs)]));
const ANY_SEALED_COLUMN = [...new Set(Object.values(SEALED_COLUMNS).flat())];
const PREFIX = 'sealed:v1:';

/** A table some of whose columns are sealed at rest. */
export const hasSealedColumns = (table: string): boolean => SEALED_BY_TABLE.has(table);

const isSealed = (value: unknown): value is string => typeof value === 'string' && value.startsWith(PREFIX);

const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export interface SecretsKeys {
  /** Seals everything written; null: secrets are stored as they are (development). */
  current: Buffer | null;
  /** Keys rotated out: they only open. */
  previous: Buffer[];
}

export class SealedSecrets implements KyselyPlugin {
  readonly #current: { id: string; key: Buffer } | null;
  readonly #openers = new Map<string, Buffer>();

  constructor(keys: SecretsKeys) {
    this.#current = keys.current && { id: keyIdOf(keys.current), key: keys.current };
    for (const key of [...keys.previous, ...(keys.current ? [keys.current] : [])]) this.#openers.set(keyIdOf(key), key);
  }

  /** How every value sealed under the current key starts; null without a key (nothing is sealed). */
  get currentPrefix(): string | null {
    return this.#current && `${PREFIX}${this.#current.id}:`;
  }

  seal(plain: string): string {
    if (!this.#current) return plain;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.#current.id}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const [keyId, data] = stored.slice(PREFIX.length).split(':');
    const key = this.#openers.get(keyId ?? '');
    // Never the value itself: a sealed string used as a signing secret would sign wrongly and quietly.
    if (!key) throw new Error(`a secret sealed under key ${keyId} was read, and neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS is that key`);
    const raw = Buffer.from(data ?? '', 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!this.#current) return node;
    if (node.kind === 'InsertQueryNode') return this.#sealInsert(node);
    if (node.kind === 'UpdateQueryNode') return this.#sealUpdate(node);
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    let rows: UnknownRow[] | null = null;
    result.rows.forEach((row, i) => {
      for (const column of ANY_SEALED_COLUMN) {
        const value = row[column];
        if (!isSealed(value)) continue;
        rows ??= [...result.rows];
        rows[i] = { ...rows[i], [column]: this.open(value) };
      }
    });
    return rows ? { ...result, rows } : result;
  }

  #sealValue = (value: unknown) => (typeof value === 'string' && !isSealed(value) ? this.seal(value) : value);

  #sealNode(node: OperationNode): OperationNode {
    return node.kind === 'ValueNode' ? { ...node, value: this.#sealValue((node as OperationNode & { value: unknown }).value) } as OperationNode : node;
  }

  #sealInsert(node: Extract<RootOperationNode, { kind: 'InsertQueryNode' }>): RootOperationNode {
    const sealed = SEALED_BY_TABLE.get(node.into?.table.identifier.name ?? '');
    if (!sealed || !node.columns || node.values?.kind !== 'ValuesNode') return node;
    const at = node.columns.flatMap((c, i) => (sealed.has(c.column.name) ? [i] : []));
    if (!at.length) return node;
    const values = node.values as OperationNode & { values: ReadonlyArray<OperationNode & { values: ReadonlyArray<unknown> }> };
    const items = values.values.map((item) => {
      const cells = [...item.values];
      for (const i of at) cells[i] = item.kind === 'PrimitiveValueListNode' ? this.#sealValue(cells[i]) : this.#sealNode(cells[i] as OperationNode);
      return { ...item, values: cells };
    });
    return { ...node, values: { ...values, values: items } as OperationNode };
  }

  #sealUpdate(node: Extract<RootOperationNode, { kind: 'UpdateQueryNode' }>): RootOperationNode {
    const table = node.table?.kind === 'TableNode' ? (node.table as OperationNode & { table: { identifier: { name: string } } }).table.identifier.name : '';
    const sealed = SEALED_BY_TABLE.get(table);
    if (!sealed || !node.updates) return node;
    const updates = node.updates.map((u) => {
      const column = u.column.kind === 'ColumnNode' ? (u.column as OperationNode & { column: { name: string } }).column.name : '';
      return sealed.has(column) ? { ...u, value: this.#sealNode(u.value) } : u;
    });
    return { ...node, updates };
  }
}

/** SECRETS_KEY and SECRETS_KEY_PREVIOUS as keys: base64 of 32 bytes each (the config checks them). */
export function secretsKeysOf(current: string | undefined, previous: string | undefined): SecretsKeys {
  const decode = (k: string) => Buffer.from(k.trim(), 'base64');
  return { current: current ? decode(current) : null, previous: (previous ?? '').split(',').filter((k) => k.trim()).map(decode) };
}

const KEY_OF: Record<SealedTable, string> = { environments: 'id', webhook_endpoints: 'id', user_totp: 'user_id', secrets: 'name', processors: 'id' };

/**
 * Seals what is stored plain (written before SECRETS_KEY was set) and re-seals what a
 * previous key sealed, each value by a conditional update (the value as read), so several
 * processes starting together do it once. Resolves with how many values it sealed.
 */
export async function sealStoredSecrets(db: Db, secrets: SealedSecrets): Promise<number> {
  const prefix = secrets.currentPrefix;
  let sealed = 0;
  for (const [table, columns] of Object.entries(SEALED_COLUMNS) as [SealedTable, readonly string[]][]) {
    const key = KEY_OF[table];
    // The stored values under other names, so the plugin leaves them as they are: with a
    // key, rows holding one not sealed under it; without, one row holding a sealed value,
    // opened here so that a service without the key it needs does not start (rather than
    // failing every request that signs).
    const rows = (await db
      .selectFrom(table)
      .select((eb) => [eb.ref(key as never).as('row_key'), ...columns.map((c) => eb.ref(c as never).as(`stored_${c}`))] as never)
      .where((eb) => eb.or(columns.map((c) => (prefix ? eb(c as never, 'not like', `${prefix}%` as never) : eb(c as never, 'like', `${PREFIX}%` as never)))))
      .$if(!prefix, (q) => q.limit(1))
      .execute()) as Record<string, string | null>[];
    if (!prefix) {
      for (const row of rows) for (const column of columns) secrets.open(row[`stored_${column}`] ?? '');
      continue;
    }
    for (const row of rows) {
      for (const column of columns) {
        const stored = row[`stored_${column}`];
        if (stored === null || stored === undefined || stored.startsWith(prefix)) continue;
        const done = await db
          .updateTable(table)
          .set({ [column]: secrets.open(stored) } as never)
          .where(key as never, '=', row.row_key as never)
          .where(column as never, '=', stored as never)
          .executeTakeFirst();
        sealed += Number(done.numUpdatedRows);
      }
    }
  }
  return sealed;
}
