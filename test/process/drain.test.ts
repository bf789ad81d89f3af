import { describe, expect, it } from 'vitest';
import { ENGINES, transactionBody } from '../api/harness';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';

// SIGTERM under load: /health/ready turns 503 at once, the process keeps serving for
// SHUTDOWN_DRAIN_MS, then stops accepting, finishes what is in flight and exits 0. Every
// request sent before the signal gets its answer.

const { environment, started, running } = processScope();

interface Sent {
  at: number;
  status: number | null;
  error?: string;
}

describe.each(ENGINES)('drain on SIGTERM on %s', (engine) => {
  it('answers every request sent before the signal, turns unready at once and exits 0', { timeout: 120_000 }, async () => {
    const env = await environment(engine, { SHUTDOWN_DRAIN_MS: '1500', SHUTDOWN_GRACE_MS: '20000' });
    const keys = await createShopKeys('Draining shop', env);
    const p = await started(env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const sent: Sent[] = [];
    let stop = false;
    let signalledAt = Infinity;
    let unreadyAt = Infinity;
    // Eight clients sending creates back to back until the process is gone.
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const s: Sent = { at: performance.now(), status: null };
        sent.push(s);
        try {
          const res = await fetch(`${p.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(transactionBody()) });
          await res.arrayBuffer();
          s.status = res.status;
        } catch (err) {
          s.error = String((err as Error).cause ?? err);
          // Refused after the drain: the process no longer accepts, as it should.
          if (s.at > signalledAt) stop = true;
        }
      }
    });
    await expect.poll(() => sent.filter((s) => s.status === 201).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(40);
    signalledAt = performance.now();
    p.child.kill('SIGTERM');
    await expect
      .poll(async () => {
        const res = await fetch(`${p.url}/health/ready`);
        if (res.status === 503) unreadyAt = performance.now();
        return res.status;
      }, { timeout: 10_000, interval: 20 })
      .toBe(503);
    // A route that answers at once (its headers sent before the request event's last
    // listener runs) is told to close its connection too, and takes nothing down.
    const live = await fetch(`${p.url}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');
    const code = await p.exited;
    stop = true;
    await Promise.all(clients);
    running.splice(0);

    expect(code).toBe(0);
    const before = sent.filter((s) => s.at < signalledAt);
    expect(before.filter((s) => s.status !== 201)).toEqual([]);
    // Still serving while unready: the load balancer's time to take it out.
    expect(sent.filter((s) => s.at > unreadyAt && s.status === 201).length).toBeGreaterThan(0);
    expect(p.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
  });
});
