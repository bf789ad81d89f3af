import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_VIEWS } from '../../server/schemas/catalogue';
import { loadConfig } from '../../server/config';
import { createOutbox } from '../../server/notify/outbox';
import type { PaymentDeps } from '../../server/payments/ask';
import type { Gateway } from '../../server/payments/gateway';
import { recordSafely, resumeStep } from '../../server/payments/outcome';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard } from '../../server/payments/sandbox';
import { type Database, openDatabase } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { insertCall, newCall } from '../../server/store/gateway-calls';
import { migrate } from '../../server/store/migrations';
import { getCall } from '../../server/store/unknown-outcomes';
import { markOutcomeUnknown } from '../../server/payments/unknown-outcome';

// The shared rules of server/payments/outcome.ts over a real SQLite store in a temporary
// folder and an in-memory gateway: a result the database refuses goes to attention once
// and is reversed at the gateway, one it cannot reach now stays pending and is never
// reversed; a keyed step rolls forward (new, in flight, resend, current).

describe('payment outcomes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payments-outcome-'));
  let database: Database;
  let deps: PaymentDeps;
  let environmentId: string;
  const asked: { method: string; reference: string }[] = [];
  const logged: { level: string; msg: string }[] = [];
  let now = new Date('2026-01-01T10:00:00Z');

  beforeAll(async () => {
    database = openDatabase({ databaseUrl: null, dataDir: dir });
    await migrate(database);
    environmentId = (await createEnvironment(database.db, { name: 'Unit shop', now })).environment_id;
    const sandbox = createSandboxCard();
    const gateway: Gateway = {
      ...sandbox,
      refund: async (input) => {
        asked.push({ method: 'refund', reference: input.reference });
        return sandbox.refund(input);
      },
    };
    const at = (level: string) => (_obj: unknown, msg: string) => void logged.push({ level, msg });
    const log = { info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
    const config = loadConfig({ DATA_DIR: dir, GATEWAY_TIMEOUT_MS: '1000' });
    deps = { config, database, gateways: createGateways([gateway]), log, now: () => now, outbox: createOutbox(() => 'http://localhost', CATALOGUE_VIEWS) };
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function pendingCall(bound?: { binding: string; step: number }) {
    const call = newCall({
      environmentId,
      gateway: deps.gateways.all[0]!,
      // A store call: its subject needs no other row, and a charge reverses like a payment.
      kind: bound ? 'store' : 'charge',
      subjectId: crypto.randomUUID(),
      amount: 500,
      currency: 'EUR',
      now,
      claimMs: deps.config.paymentClaimMs,
      bound,
    });
    await insertCall(database.db, call);
    return call;
  }

  const refused = () => Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
  const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('a result the database refuses moves the call to attention, logged once, and reverses the charge', async () => {
    const call = await pendingCall();
    logged.length = 0;
    const settled = { status: 'succeeded', reference: 'sbx_charge_1', card: null } as const;
    const outcome = await recordSafely(deps, call, settled, () => Promise.reject(refused()));
    expect(outcome).toEqual({ kind: 'attention' });
    expect((await getCall(database.db, call.id))!.state).toBe('attention');
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(asked).toContainEqual({ method: 'refund', reference: `${call.reference}_reversal` });
  });

  it('a result the database cannot take now leaves the call pending, and reverses nothing', async () => {
    const call = await pendingCall();
    logged.length = 0;
    const before = asked.length;
    const outcome = await recordSafely(deps, call, { status: 'succeeded', reference: 'sbx_charge_2', card: null }, () => Promise.reject(unreachable()));
    expect(outcome).toEqual({ kind: 'kept_pending' });
    expect((await getCall(database.db, call.id))!.state).toBe('pending');
    expect(asked).toHaveLength(before);
    expect(logged.filter((l) => l.level === 'error')).toHaveLength(0);
  });

  it('a recorded result is passed through', async () => {
    const call = await pendingCall();
    expect(await recordSafely(deps, call, { status: 'failed', reason: 'declined', card: null }, async () => 'sale')).toEqual({ kind: 'recorded', value: 'sale' });
  });

  it('a keyed step rolls forward: new, in flight while claimed, resent once its claim ran out, current once unknown', async () => {
    const bound = { binding: crypto.randomUUID(), step: 0 };
    expect(await resumeStep(deps, bound)).toEqual({ kind: 'new' });
    expect(await resumeStep(deps, undefined)).toEqual({ kind: 'new' });
    const call = await pendingCall(bound);
    expect(call.reference).toBe(`gk_${bound.binding}_0`);

    const inFlight = await resumeStep(deps, bound);
    expect(inFlight).toMatchObject({ kind: 'in_flight' });
    expect((inFlight as { retryAfterMs: number }).retryAfterMs).toBe(deps.config.paymentClaimMs);

    now = new Date(now.getTime() + deps.config.paymentClaimMs + 1);
    const resent = await resumeStep(deps, bound);
    expect(resent).toMatchObject({ kind: 'resend', call: { id: call.id, reference: call.reference } });
    // Taken once: a second retry at the same moment finds it claimed again.
    expect(await resumeStep(deps, bound)).toMatchObject({ kind: 'in_flight' });

    await markOutcomeUnknown(database.db, (await getCall(database.db, call.id))!, now);
    expect(await resumeStep(deps, bound)).toMatchObject({ kind: 'current', call: { id: call.id } });
  });
});
