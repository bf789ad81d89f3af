import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../server/domain/ids';
import { type ActionStep, addPending, moveDisputed, removePending, type SaleAction, type SaleAmounts, paysItsTransaction, saleStatus, stepAction, undoRefund } from '../../server/domain/sales';
import { type Database, inTransaction, openDatabase, type Tx } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { migrate } from '../../server/store/migrations';
import { newSaleRow } from '../../server/store/new-sale';
import { paysItsTransactionSql } from '../../server/store/paying-sale';
import type { SaleRow } from '../../server/store/schema';
import { addPendingActions, changeSale, insertSales, moveAmounts, moveSaleDisputed, removePendingAction, unrefund } from '../../server/store/sale-aggregate';
import { ENGINES } from './harness';

// Model-based property test of the sale aggregate (issue 48, step 1): random sequences of
// reserve / confirm / release of captures, refunds and voids, failed refunds, disputes and
// calls of unknown outcome, run through the real store (a database transaction each, the
// row locked, the rule of domain/sales.ts asked, the amounts and status written) and
// through a plain model that keeps the amounts in memory. After every step the stored row
// must equal the model: every amount, and the status saleStatus gives them. Then the same
// steps, two at a time, race for one sale: the row must still equal a model that applied
// the ones the store accepted, and no rule may be broken whatever the order.

const AMOUNT_COLUMNS = ['held', 'captured', 'refunded', 'voided', 'capturing', 'refunding', 'voiding', 'failure', 'pending', 'disputed'] as const;

type Command =
  | { kind: 'action'; action: SaleAction; step: ActionStep; x: number }
  | { kind: 'unrefund'; x: number }
  | { kind: 'dispute'; x: number }
  | { kind: 'pending' }
  | { kind: 'settled' };

const money = fc.integer({ min: 1, max: 1200 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('action' as const), action: fc.constantFrom<SaleAction>('capture', 'refund', 'void'), step: fc.constantFrom<ActionStep>('reserve', 'confirm', 'release'), x: money }),
  fc.record({ kind: fc.constant('unrefund' as const), x: money }),
  fc.record({ kind: fc.constant('dispute' as const), x: fc.integer({ min: -600, max: 600 }).filter((x) => x !== 0) }),
  fc.constant({ kind: 'pending' as const }),
  fc.constant({ kind: 'settled' as const }),
);
/** A new sale: a hold (nothing captured yet) or a payment captured at once, of 1,000. */
const start = fc.constantFrom('hold', 'captured');

/** The model's step: the rule of domain/sales.ts on the amounts in memory (null: refused). */
function modelStep(s: SaleAmounts, c: Command): SaleAmounts | null {
  switch (c.kind) {
    case 'action':
      return stepAction(c.action, c.step, s, c.x);
    case 'unrefund':
      return undoRefund(s, c.x);
    case 'dispute':
      return moveDisputed(s, c.x);
    case 'pending':
      return addPending(s);
    case 'settled':
      return removePending(s);
  }
}

/** The store's step, in a database transaction of its own: whether it wrote. */
function storeStep(database: Database, saleId: string, c: Command, now: Date): Promise<boolean> {
  return inTransaction(database.db, async (trx) => Boolean(await write(trx)));
  function write(trx: Tx) {
    switch (c.kind) {
      case 'action':
        return moveAmounts(trx, saleId, c.action, c.step, c.x, now);
      case 'unrefund':
        return unrefund(trx, saleId, c.x, now);
      case 'dispute':
        return moveSaleDisputed(trx, saleId, c.x, now);
      case 'pending':
        return addPendingActions(trx, [saleId], now).then(() => true);
      case 'settled':
        return removePendingAction(trx, saleId, now);
    }
  }
}

describe.each(ENGINES)('the sale aggregate against its model on %s', (engine) => {
  let database: Database;
  let dataDir: string;
  let environmentId: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'checkout-sale-model-'));
    database = openDatabase({ databaseUrl: engine === 'postgres' ? process.env.TEST_DATABASE_URL! : null, dataDir });
    await migrate(database);
    environmentId = (await createEnvironment(database.db, { name: 'Sale model', now: new Date() })).environment_id;
  });
  afterAll(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function newSale(kind: string): Promise<{ id: string; model: SaleAmounts }> {
    const now = new Date();
    const [row] = await inTransaction(database.db, (trx) =>
      insertSales(trx, [
        newSaleRow({ id: uuidv7(now.getTime()), environment_id: environmentId, gateway_id: 'model', gateway_account: null, currency: 'EUR', amount: 1000, notify_url: null, created_at: now.toISOString(), updated_at: now.toISOString(), ...(kind === 'hold' ? { held: 1000 } : { captured: 1000 }) }),
      ]),
    );
    return { id: row!.id, model: row! };
  }

  async function stored(id: string) {
    return database.db.selectFrom('sales').select([...AMOUNT_COLUMNS, 'status']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  const expectModel = async (id: string, model: SaleAmounts) => {
    const row = await stored(id);
    expect(row).toEqual({ ...Object.fromEntries(AMOUNT_COLUMNS.map((c) => [c, c === 'disputed' ? (model.disputed ?? 0) : model[c]])), status: saleStatus(model) });
  };

  it('one step at a time: every row as the model says, every refusal the model’s', async () => {
    await fc.assert(
      fc.asyncProperty(start, fc.array(command, { minLength: 1, maxLength: 25 }), async (kind, commands) => {
        const sale = await newSale(kind);
        let model = sale.model;
        for (const c of commands) {
          const next = modelStep(model, c);
          expect(await storeStep(database, sale.id, c, new Date())).toBe(next !== null);
          model = next ?? model;
          await expectModel(sale.id, model);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('two steps at once on one sale: the row is the model of the ones accepted, in some order, and never breaks a rule', async () => {
    await fc.assert(
      fc.asyncProperty(start, fc.array(fc.tuple(command, command), { minLength: 1, maxLength: 8 }), async (kind, pairs) => {
        const sale = await newSale(kind);
        let model = sale.model;
        for (const [a, b] of pairs) {
          const [tookA, tookB] = await Promise.all([storeStep(database, sale.id, a, new Date()), storeStep(database, sale.id, b, new Date())]);
          // The store serialised them: one of the two orders explains what it accepted.
          const orders = [
            [a, tookA, b, tookB],
            [b, tookB, a, tookA],
          ] as const;
          const explained = orders
            .map(([first, tookFirst, second, tookSecond]) => {
              const afterFirst = modelStep(model, first);
              if ((afterFirst !== null) !== tookFirst) return null;
              const base = afterFirst ?? model;
              const afterSecond = modelStep(base, second);
              return (afterSecond !== null) === tookSecond ? (afterSecond ?? base) : null;
            })
            .find((m) => m !== null);
          expect(explained, `${JSON.stringify([a, tookA, b, tookB])} on ${JSON.stringify(model)}`).toBeTruthy();
          model = explained!;
          await expectModel(sale.id, model);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('a rule that refuses writes nothing, not even the time of the change', async () => {
    const sale = await newSale('hold');
    const before = await database.db.selectFrom('sales').selectAll().where('id', '=', sale.id).executeTakeFirstOrThrow();
    expect(await inTransaction(database.db, (trx) => changeSale(trx, sale.id, () => null, new Date(Date.now() + 60_000)))).toBeUndefined();
    expect(await database.db.selectFrom('sales').selectAll().where('id', '=', sale.id).executeTakeFirstOrThrow()).toEqual(before);
  });

  it('the read side picks the sales that pay their transaction as domain/sales.ts paysItsTransaction does', async () => {
    const now = new Date();
    const transactionId = uuidv7(now.getTime());
    const kinds: Pick<SaleRow, 'failure' | 'late_for_transaction_id'>[] = [
      { failure: null, late_for_transaction_id: null },
      { failure: 'declined', late_for_transaction_id: null },
      { failure: null, late_for_transaction_id: transactionId },
      { failure: 'not_processed', late_for_transaction_id: transactionId },
    ];
    const rows = kinds.map((k, i) =>
      newSaleRow({ id: uuidv7(now.getTime() + i), environment_id: environmentId, gateway_id: 'model', gateway_account: null, currency: 'EUR', amount: 1000, notify_url: null, created_at: now.toISOString(), updated_at: now.toISOString(), captured: 1000, ...k }),
    );
    await inTransaction(database.db, (trx) => insertSales(trx, rows));
    const ids = rows.map((r) => r.id);
    const picked = await database.db.selectFrom('sales').select('id').where('id', 'in', ids).where(paysItsTransactionSql('sales')).orderBy('id').execute();
    expect(picked.map((r) => r.id)).toEqual(rows.filter(paysItsTransaction).map((r) => r.id));
    expect(picked).toHaveLength(1);
  });
});
