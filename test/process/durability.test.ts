import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ENGINES, transactionBody } from '../api/harness';
import { startServiceProcess, useProcesses } from '../api/process';
import { createShopKeys } from '../shop-keys';

// "Nothing acknowledged to a client is ever lost on a crash": the real service in a child
// process takes a burst of creations, is killed with SIGKILL in the middle, restarts on
// the same data, and must still have every transaction whose 201 was received.

const TOTAL = 200;
const IN_FLIGHT = 8;
const KILL_AFTER = 80;

describe.each(ENGINES)('durability on %s', (engine) => {
  const { env, running } = useProcesses(engine, 'checkout-durability-');

  it('keeps every acknowledged transaction across a SIGKILL', { timeout: 90_000 }, async () => {
    const keys = await createShopKeys('Durable shop', env);
    const auth = `AppKeys ${keys.public_key}:${keys.secret_key}`;
    const first = await startServiceProcess(env);
    running.push(first);

    const acked = new Map<string, Record<string, unknown>>();
    let sent = 0;
    let killed = false;
    const worker = async () => {
      while (sent < TOTAL && !killed) {
        const i = sent++;
        try {
          const res = await fetch(`${first.url}/v1/transaction/`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify(transactionBody({ order_id: `burst-${i}`, note: `n${i}` })),
          });
          const text = await res.text();
          if (res.status !== 201) throw new Error(`${res.status} ${text}`);
          const body = JSON.parse(text) as Record<string, unknown>;
          acked.set(body.id as string, body);
          if (acked.size >= KILL_AFTER && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch (err) {
          // Only requests cut off by the kill may fail.
          if (!killed) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    expect(await first.exited).toBe('SIGKILL');
    expect(killed).toBe(true);
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(sent).toBeLessThan(TOTAL); // the kill really came in the middle

    if (engine === 'sqlite') {
      // The file the killed process left is a sound database (WAL replayed on open).
      const db = new SQLite(join(env.DATA_DIR, 'checkout.db'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    }

    const second = await startServiceProcess(env);
    running.push(second);
    const get = (path: string) => fetch(`${second.url}/v1${path}`, { headers: { authorization: auth } });

    for (const [id, body] of acked) {
      const res = await get(`/transaction/${id}/`);
      expect(res.status, id).toBe(200);
      const read = (await res.json()) as Record<string, unknown>;
      // Only the port in payment_url may differ between the two processes.
      expect({ ...read, payment_url: undefined }).toEqual({ ...body, payment_url: undefined });
      expect(String(read.payment_url)).toMatch(new RegExp(`/pay/${body.token}/$`));
    }
    // Nothing invented either: at most what was sent, at least what was acknowledged.
    const list = (await (await get('/transaction/?page_size=1')).json()) as { count: number };
    expect(list.count).toBeGreaterThanOrEqual(acked.size);
    expect(list.count).toBeLessThanOrEqual(sent);

    // And the restarted service takes new writes.
    const more = await fetch(`${second.url}/v1/transaction/`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(transactionBody({ order_id: 'after-restart' })),
    });
    expect(more.status).toBe(201);
    await second.stop();
    expect(await second.exited).toBe(0);
  });
});
