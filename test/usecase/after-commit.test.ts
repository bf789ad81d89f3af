import { describe, expect, it } from 'vitest';
import { afterCommit, inTransaction, Rollback, rollbackOn } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { ENGINES } from '../test-env';
import { useWorld } from './world';

// store/db.ts afterCommit: who is told once a write has committed (the outbox, so that a
// change's webhooks go out at once) is told after the commit, once, and never for a
// transaction that rolled back; outside a transaction, at once.

describe.each(ENGINES)('told after the commit on %s', (engine) => {
  const world = useWorld(engine);
  const db = () => world.deps.database.db;
  const named = async (name: string) => (await db().selectFrom('environments').select('id').where('name', '=', name).execute()).length;

  it('in a transaction, after its commit, with the row there for every connection; in one joined, after the outer commit', async () => {
    const told: string[] = [];
    let seen: Promise<number> | undefined;
    await inTransaction(db(), async (trx) => {
      await createEnvironment(trx, { name: 'after-commit outer', now: world.clock.now() });
      // Asked by the listener, on a connection of its own: what a woken job would read.
      const listener = () => {
        told.push('outer');
        seen = named('after-commit outer');
      };
      expect(afterCommit(trx, listener)).toBe(true);
      await inTransaction(trx, async (joined) => {
        expect(afterCommit(joined, () => told.push('joined'))).toBe(true);
      });
      // The statements after it run before the commit: nobody told yet.
      await createEnvironment(trx, { name: 'after-commit outer 2', now: world.clock.now() });
      expect(told).toEqual([]);
    });
    expect(told).toEqual(['outer', 'joined']);
    expect(await seen).toBe(1);
  });

  it('never for a transaction rolled back; at once outside a transaction', async () => {
    const told: string[] = [];
    const answer = await rollbackOn(db(), async (trx) => {
      await createEnvironment(trx, { name: 'after-commit rolled back', now: world.clock.now() });
      afterCommit(trx, () => told.push('rolled back'));
      throw new Rollback('no');
    });
    expect(answer).toBe('no');
    await expect(
      inTransaction(db(), async (trx) => {
        afterCommit(trx, () => told.push('failed'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(told).toEqual([]);
    expect(await named('after-commit rolled back')).toBe(0);
    afterCommit(db(), () => told.push('outside'));
    expect(told).toEqual(['outside']);
  });
});
