import { afterEach, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { completePayment } from '../../server/payments/complete-payment';
import { inTransaction } from '../../server/store/db';
import { findSaleOfTransaction } from '../../server/store/payments';
import { getTransaction } from '../../server/store/transactions';
import { answeredTogether, type Planned } from '../../server/store/together';
import { ENGINES } from '../test-env';
import { newTransaction, payWith } from './checkout';
import { type UseCaseWorld, useWorld } from './world';

// Statements sent together (server/store/together.ts) each run whatever the one before
// answered: a payment's record sends the transaction's N → D with its call's settle, so when
// the call turns out settled already, the whole record must be undone, the transaction
// left as it was.

/** A statement of the world's database, read as its rows. */
function planned(world: UseCaseWorld, sql: string, parameters: unknown[]): Planned<unknown[]> {
  return { query: { sql, parameters, query: { kind: 'RawNode' } } as never, read: ({ rows }) => rows };
}

const placeholder = (engine: string, n: number) => (engine === 'postgres' ? `$${n}` : '?');

describe.each(ENGINES)('statements answered together on %s', (engine) => {
  const world = useWorld(engine);
  afterEach(() => world.clock.reset());

  it('undoes a payment’s record whose call another attempt settled: the transaction stays unpaid', async () => {
    const db = world.deps.database.db;
    const tx = await newTransaction(world, 'EUR', 12);
    // Declined: its call settled `failed`, the transaction free for another attempt.
    expect((await payWith(world, tx, TEST_CARDS.declined)).kind).toBe('declined');
    const call = await db.selectFrom('gateway_calls').select(['id', 'state']).where('subject_id', '=', tx.id).executeTakeFirstOrThrow();
    expect(call.state).toBe('failed');

    // A success for that call recorded as if it were still pending (a racing record): nothing stands.
    const outcome = await completePayment(
      db,
      {
        transactionId: tx.id,
        gatewayId: world.card.id,
        gatewayAccount: null,
        outcome: 'approved',
        cardBrand: 'visa',
        cardLast4: '4242',
        language: null,
        callId: call.id,
        callState: 'pending',
        environmentId: world.environmentId,
        currency: 'EUR',
        amount: 1200,
        hold: false,
        gatewayReference: 'ref-elsewhere',
        card: null,
        authentication: null,
      },
      world.deps.now(),
      world.deps.outbox,
    );
    expect(outcome).toEqual({ kind: 'settled_elsewhere' });
    expect((await getTransaction(db, world.environmentId, tx.id))?.row.status).toBe('N');
    expect(await findSaleOfTransaction(db, tx.id)).toBeUndefined();
    // The transaction still pays.
    expect((await payWith(world, tx)).kind).toBe('paid');
  });

  it('answers each statement in order, and rolls back on the first error with nothing after it kept', async () => {
    const db = world.deps.database.db;
    const tx = await newTransaction(world, 'EUR', 5);
    const p = (n: number) => placeholder(engine, n);
    const [before, updated] = await inTransaction(db, (trx) =>
      answeredTogether(
        trx,
        planned(world, `select order_id from transactions where id = ${p(1)}`, [tx.id]),
        planned(world, `update transactions set order_id = ${p(1)} where id = ${p(2)} returning order_id`, ['together-1', tx.id]),
      ),
    );
    expect(before).toEqual([{ order_id: tx.order_id }]);
    expect(updated).toEqual([{ order_id: 'together-1' }]);

    // The first refused (a transaction with no environment), the second not kept.
    const refused = inTransaction(db, (trx) =>
      answeredTogether(
        trx,
        planned(world, `update transactions set environment_id = null where id = ${p(1)} returning id`, [tx.id]),
        planned(world, `update transactions set order_id = ${p(1)} where id = ${p(2)} returning order_id`, ['together-2', tx.id]),
      ),
    );
    await expect(refused).rejects.toThrow(/null/i);
    const row = await db.selectFrom('transactions').select(['order_id', 'environment_id']).where('id', '=', tx.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ order_id: 'together-1', environment_id: world.environmentId });
  });
});
