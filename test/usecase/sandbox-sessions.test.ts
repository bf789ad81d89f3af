import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { normalizeCardNumber } from '../../widget/fields/card';
import { createSandboxCard, createSandboxRedirect } from '../../server/payments/sandbox';
import { databaseBooks } from '../../server/payments/sandbox-books';
import { databaseSessions } from '../../server/payments/sandbox-sessions';
import { type Database, openDatabase } from '../../server/store/db';
import { ENGINES } from '../test-env';
import { useWorld } from './world';

// The sandbox's database sessions (migration 143) as two processes see them, through two
// connections: a challenge asked through one is answered through the other, a redirect's
// page and signed return are read through the other, and a challenge keeps no card number
// or CVC.

const signal = new AbortController().signal;
const CVC = '987';
const fields = (card: string) => ({ card_number: card, card_expiry: '12/34', card_cvc: CVC, card_name: 'A' });

describe.each(ENGINES)('the sandbox database sessions on %s', (engine) => {
  const world = useWorld(engine);
  let other: Database;
  beforeAll(() => {
    other = openDatabase({ ...world.deps.config, log: world.deps.log });
  });
  afterAll(() => other.close());
  const gateways = <T>(make: (books: ReturnType<typeof databaseBooks>, sessions: ReturnType<typeof databaseSessions>) => T) => ({
    here: make(databaseBooks(world.deps.database.db, world.clock.now), databaseSessions(world.deps.database.db, world.clock.now)),
    there: make(databaseBooks(other.db, world.clock.now), databaseSessions(other.db, world.clock.now)),
  });

  it('answer through one connection a challenge asked through another, keeping only the card summary', async () => {
    const { here, there } = gateways(createSandboxCard);
    const reference = `gc_sessions_chl_${engine}`;
    const asked = await here.pay({ reference, signal, amount: 500, currency: 'EUR', capture: true, fields: fields(TEST_CARDS.challenged) });
    expect(asked).toMatchObject({ outcome: 'challenge' });
    const challenge = (asked as { challenge: string }).challenge;
    const answered = await there.resume!({ reference, signal, challenge, answer: 'completed' });
    expect(answered).toMatchObject({ outcome: 'approved', card: { last4: '3184' }, authentication: { status: 'authenticated', method: 'challenge' } });

    const row = await other.db.selectFrom('sandbox_sessions').selectAll().where('id', '=', challenge).executeTakeFirstOrThrow();
    expect(row.state).not.toContain(normalizeCardNumber(TEST_CARDS.challenged));
    expect(row.state).not.toContain(CVC);
  });

  it('show through one connection the page of a redirect started through another, whose return verifies there', async () => {
    const { here, there } = gateways(createSandboxRedirect);
    const reference = `gc_sessions_rdr_${engine}`;
    const returnUrl = `https://checkout.example/pay/tok/return/${reference}/`;
    expect(await here.pay({ reference, signal, amount: 500, currency: 'EUR', capture: true, fields: {}, returnUrl })).toMatchObject({ outcome: 'redirect' });
    const page = await there.sandboxPage!({ reference });
    expect(page?.approve.url).toBe(returnUrl);
    const back = await here.return!({ reference, signal, query: {}, body: page!.approve.fields! });
    expect(back).toMatchObject({ outcome: 'approved' });
    expect(await there.return!({ reference, signal, query: {}, body: { ...page!.approve.fields!, sandbox_result: 'reject' } })).toMatchObject({ outcome: 'not_acted' });
  });
});
