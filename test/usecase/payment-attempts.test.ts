import { afterEach, describe, expect, it } from 'vitest';
import { FAILED_ATTEMPTS_LIMIT } from '../../server/domain/payment-claim';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { failedAttemptsWait, findSaleOfTransaction } from '../../server/store/payments';
import { getTransaction, type Transaction } from '../../server/store/transactions';
import { ENGINES } from '../test-env';
import { newTransaction, payWith } from './checkout';
import { type UseCaseWorld, useWorld } from './world';

// Card testing (domain/payment-claim.ts): a transaction takes a limited number of declined
// cards an hour; past them the pay use case claims nothing (the page's 429 with
// Retry-After: api/checkout-attempts.test.ts), until the oldest counted decline is an hour old.

const HOUR = 60 * 60_000;

async function declineTimes(world: UseCaseWorld, transaction: Transaction, n: number) {
  for (let i = 0; i < n; i++) expect((await payWith(world, transaction, TEST_CARDS.declined)).kind).toBe('declined');
}

/** How long the transaction still refuses attempts, as the page's Retry-After tells it. */
const wait = (world: UseCaseWorld, transaction: Transaction) => failedAttemptsWait(world.deps.database.db, transaction.id, world.deps.now());

describe.each(ENGINES)('payment attempts on %s', (engine) => {
  const world = useWorld(engine);
  afterEach(() => world.clock.reset());

  it('takes attempts again once the oldest counted decline is an hour old', async () => {
    const tx = await newTransaction(world, 'EUR', 17);
    await declineTimes(world, tx, 1);
    world.clock.advance(10 * 60_000);
    await declineTimes(world, tx, FAILED_ATTEMPTS_LIMIT - 1);
    expect((await payWith(world, tx)).kind).toBe('not_claimed');
    // 50 minutes left of the first decline's hour.
    expect(await wait(world, tx)).toBeGreaterThan(49 * 60_000);
    expect(await wait(world, tx)).toBeLessThanOrEqual(50 * 60_000);
    expect(await findSaleOfTransaction(world.deps.database.db, tx.id)).toBeUndefined();

    // The first decline leaves the window: one attempt is free again, and it pays.
    world.clock.advance(HOUR - 10 * 60_000 + 1_000);
    expect(await wait(world, tx)).toBe(0);
    expect((await payWith(world, tx)).kind).toBe('paid');
    expect((await getTransaction(world.deps.database.db, world.environmentId, tx.id))?.row.status).toBe('D');
  });

  it('counts per transaction: another transaction of the same shop still pays', async () => {
    const tx = await newTransaction(world, 'EUR', 17);
    await declineTimes(world, tx, FAILED_ATTEMPTS_LIMIT);
    expect((await payWith(world, tx)).kind).toBe('not_claimed');
    const other = await newTransaction(world, 'EUR', 17);
    expect(await wait(world, other)).toBe(0);
    expect((await payWith(world, other)).kind).toBe('paid');
  });
});
