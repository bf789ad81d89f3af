import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { createSandboxCard } from '../../server/payments/sandbox';
import { databaseBooks } from '../../server/payments/sandbox-books';
import { type Database, openDatabase } from '../../server/store/db';
import { ENGINES } from '../test-env';
import { useWorld } from './world';

// The sandbox's database books act once per reference across processes: two connections
// (as two processes have) pay the same reference at once with cards that would answer
// differently, and both get the answer the books kept first.

const signal = new AbortController().signal;
const payInput = (reference: string, card: string) => ({
  reference,
  signal,
  amount: 500,
  currency: 'EUR',
  capture: true,
  fields: { card_number: card, card_expiry: '12/34', card_cvc: '123', card_name: 'A' },
});

describe.each(ENGINES)('the sandbox database books on %s', (engine) => {
  const world = useWorld(engine);
  let other: Database;
  beforeAll(() => {
    other = openDatabase({ ...world.deps.config, log: world.deps.log });
  });
  afterAll(() => other.close());

  it('answer a repeat from another connection with the first answer, acting once', async () => {
    const here = createSandboxCard(databaseBooks(world.deps.database.db, world.clock.now));
    const there = createSandboxCard(databaseBooks(other.db, world.clock.now));
    const reference = `gc_books_${engine}`;
    const answers = await Promise.all([
      here.pay(payInput(reference, TEST_CARDS.approved)),
      there.pay(payInput(reference, TEST_CARDS.declined)),
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(await there.lookup!({ reference, signal })).toEqual(await here.lookup!({ reference, signal }));
    const rows = await other.db.selectFrom('sandbox_charges').selectAll().where('reference', '=', reference).execute();
    expect(rows).toHaveLength(1);
  });
});
