import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Command, runIdempotent } from '../../server/commands/idempotent';
import type { Db } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { ENGINES } from '../test-env';
import { useWorld } from './world';

// The Idempotency-Key protocol for a command that makes no gateway call
// (commands/idempotent.ts): its work and its key's answer are written in one transaction,
// no claim before them. The work here creates an environment named after the run, and
// looks for its own key while it runs.

describe.each(ENGINES)('a keyed command without gateway calls on %s', (engine) => {
  const world = useWorld(engine);
  const db = () => world.deps.database.db;

  /** A command whose work creates an environment `name` and says whether its key was visible meanwhile. */
  function command(key: string, name: string, o: { hash?: string; fail?: boolean } = {}): Command<{ keySeen: boolean }> {
    return {
      environmentId: world.environmentId,
      key,
      requestHash: o.hash ?? 'same',
      now: () => world.clock.now(),
      gatewayCalls: 0,
      paymentClaimMs: 1000,
      async run(trx: Db) {
        const keySeen = (await trx.selectFrom('idempotency_keys').select('key').where('environment_id', '=', world.environmentId).where('key', '=', key).executeTakeFirst()) !== undefined;
        await createEnvironment(trx, { name, now: world.clock.now() });
        if (o.fail) throw new Error('refused');
        return { value: { keySeen }, end: { status: 201, body: JSON.stringify({ name }) } };
      },
    };
  }

  const named = async (name: string) => (await db().selectFrom('environments').select('id').where('name', '=', name).execute()).length;
  const keyRow = (key: string) => db().selectFrom('idempotency_keys').selectAll().where('environment_id', '=', world.environmentId).where('key', '=', key).executeTakeFirst();

  it('runs the work with no claim written before it, and records the key done with its answer', async () => {
    const key = randomUUID();
    const name = `first ${key}`;
    const outcome = await runIdempotent(db(), command(key, name));
    expect(outcome).toEqual({ kind: 'ran', value: { keySeen: false } });
    expect(await named(name)).toBe(1);
    expect(await keyRow(key)).toMatchObject({ state: 'done', status_code: 201, response_body: JSON.stringify({ name }), request_hash: 'same' });
  });

  it('a repeat replays the stored answer and its own work is rolled back; another request under the key is a mismatch', async () => {
    const key = randomUUID();
    const name = `repeat ${key}`;
    await runIdempotent(db(), command(key, name));
    expect(await runIdempotent(db(), command(key, name))).toEqual({ kind: 'replay', status: 201, body: JSON.stringify({ name }) });
    expect(await runIdempotent(db(), command(key, `${name} other`, { hash: 'other' }))).toEqual({ kind: 'mismatch' });
    expect(await named(name)).toBe(1);
    expect(await named(`${name} other`)).toBe(0);
  });

  it('a key some request is still running (claimed, not done) is in flight: the work stands undone', async () => {
    const key = randomUUID();
    const name = `running ${key}`;
    await db()
      .insertInto('idempotency_keys')
      .values({ environment_id: world.environmentId, key, request_hash: 'same', state: 'running', status_code: null, response_body: null, created_at: world.clock.now().toISOString(), owner: 'o', binding: 'b' })
      .execute();
    expect(await runIdempotent(db(), command(key, name))).toMatchObject({ kind: 'in_flight' });
    expect(await named(name)).toBe(0);
  });

  it('work that fails leaves no key and nothing of itself: the same key then runs it', async () => {
    const key = randomUUID();
    const name = `failing ${key}`;
    await expect(runIdempotent(db(), command(key, name, { fail: true }))).rejects.toThrow('refused');
    expect(await keyRow(key)).toBeUndefined();
    expect(await named(name)).toBe(0);
    expect(await runIdempotent(db(), command(key, name))).toEqual({ kind: 'ran', value: { keySeen: false } });
    expect(await named(name)).toBe(1);
  });
});
