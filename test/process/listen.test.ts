import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionBody, useTestService } from '../api/harness';
import { cancelToken, payToken } from '../api/pay';
import { type Receiver, startReceiver } from '../api/receiver';

// `npm run listen` as a developer runs it: a real process that follows the environment's
// events over the API (no inbound port) and forwards them to a local receiver, signed
// with the secret it prints; `npm run trigger` makes a real event happen; `--replay`
// sends one again. Signatures are checked with the `standardwebhooks` package.

const ROOT = join(import.meta.dirname, '..', '..');

interface Listener {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first stdout line matching `pattern`, now or later. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stderr(): string;
  exited: Promise<unknown>;
}

function startListener(args: string[], env: Record<string, string> = {}): Listener {
  // Its own process group, so the test can stop npm and what npm started, by this group's id.
  const child = spawn('npm', ['run', '--silent', 'listen', '--', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  let waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    line(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line ${pattern} in:\n${lines.join('\n')}\n${stderr}`)), timeoutMs);
        const check = () => {
          const found = lines.find((l) => pattern.test(l));
          if (!found) return void waiters.push(check);
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
          resolve(found);
        };
        check();
      });
    },
  };
}

const npm = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('npm', ['run', '--silent', ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

// On one engine: the tools are clients of the HTTP API (the events list, a payment), which
// the API suite runs on both; each npm run here is a process start (npm, then tsx).
describe('npm run listen', () => {
  const svc = useTestService('sqlite');
  let hook: Receiver;
  let listener: Listener | undefined;
  let secret: string;

  beforeAll(async () => {
    hook = await startReceiver();
  });
  afterAll(async () => {
    if (listener && listener.child.exitCode === null) {
      process.kill(-listener.child.pid!, 'SIGTERM');
      await listener.exited;
    }
    await hook?.close();
  });

  const keyArg = () => `${svc.api.keys.public_key}:${svc.api.keys.secret_key}`;
  const verify = (r: { body: string; headers: unknown }) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>);

  it('prints its secret once connected and forwards each new event, signed, printing the local answer', async () => {
    const api = svc.api;
    // An event from before it started is not forwarded.
    const earlier = await api.post('/transaction/', transactionBody());
    expect(await payToken(svc.t.url, earlier.body.token)).toBe(200);

    listener = startListener(['--api', svc.t.url, '--key', keyArg(), '--forward-to', hook.url, '--events', 'transaction.paid']);
    const ready = await listener.line(/^Ready! Your signing secret is whsec_/);
    secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(ready)![1]!;

    // Filtered out by --events: a cancellation, then a payment (which arrives; the cancellation never does).
    const cancelled = await api.post('/transaction/', transactionBody());
    await cancelToken(svc.t.url, cancelled.body.token);
    const created = await api.post('/transaction/', transactionBody());
    expect(await payToken(svc.t.url, created.body.token)).toBe(200);
    const [received] = await hook.waitFor(1, 60_000);
    expect(received!.payload).toMatchObject({ type: 'transaction.paid', data: { id: created.body.id, status: 'D' } });
    expect(verify(received!)).toEqual(received!.payload);
    expect(() => new Webhook(svc.api.keys.webhook_secret).verify(received!.body, received!.headers as Record<string, string>)).toThrow();
    const event = (await api.get(`/event/?object_id=${created.body.id}&type=transaction.paid`)).body.results[0];
    expect(received!.headers['webhook-id']).toBe(event.id);
    expect(received!.payload.data).toEqual(event.data);
    expect(await listener.line(new RegExp(`--> transaction\\.paid \\[${event.id}\\]  <-- \\[200\\] POST ${hook.url.replace(/[.]/g, '\\.')}`))).toBeTruthy();
    expect(hook.received.map((r) => r.payload.data.id)).toEqual([created.body.id]);
  }, 120_000);

  it('npm run trigger -- transaction.paid makes a real payment whose event the listener forwards', async () => {
    const before = hook.received.length;
    const run = await npm(['trigger', '--', 'transaction.paid'], { PAYMENT_API_URL: svc.t.url, PAYMENT_KEY: keyArg() });
    expect(run.code, run.stderr).toBe(0);
    const id = /transaction ([0-9a-f-]{36})/.exec(run.stdout)![1]!;
    await hook.waitFor(before + 1, 60_000);
    const received = hook.received.at(-1)!;
    expect(received.payload).toMatchObject({ type: 'transaction.paid', data: { id, status: 'D' } });
    expect(verify(received)).toEqual(received.payload);
    expect((await svc.api.get(`/transaction/${id}/`)).body.status).toBe('D');
  }, 120_000);

  it('--replay sends one event again and exits; unknown types and missing keys are refused', async () => {
    const event = (await svc.api.get('/event/?type=transaction.paid&page_size=1')).body.results[0];
    const before = hook.received.length;
    const run = await npm(['listen', '--', '--forward-to', hook.url, '--replay', event.id], { PAYMENT_API_URL: svc.t.url, PAYMENT_KEY: keyArg() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`--> transaction.paid [${event.id}]  <-- [200]`);
    await hook.waitFor(before + 1);
    const again = hook.received.at(-1)!;
    expect(again.headers['webhook-id']).toBe(event.id);
    expect(verify(again)).toMatchObject({ id: event.id, data: event.data });

    const unknown = await npm(['trigger', '--', 'transaction.payed'], { PAYMENT_API_URL: svc.t.url, PAYMENT_KEY: keyArg() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Cannot trigger transaction\.payed/);
    const noKey = await npm(['listen', '--', '--api', svc.t.url, '--forward-to', hook.url], { PAYMENT_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--key \(or PAYMENT_KEY\)/);
    const wrongKey = await npm(['listen', '--', '--api', svc.t.url, '--key', 'pk_test_x:sk_test_y', '--forward-to', hook.url], {});
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/401/);
  }, 120_000);
});
