import { expect } from 'vitest';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { startIsolatedService } from './database';
import type { Client, EngineName, TestClock, TestService } from './harness';

// The service on a database of its own with the Redsys double standing in for Redsys
// (REDSYS_URL), and a new environment connected to one of the double's terminals through
// the processors API: shared by the Redsys tests of the service (redsys-*.test.ts).

/** The processors API's body for the double's terminal `n` (1: with the query service, 2: without), under Redsys's published test key. */
export const redsysTerminal = (n: '1' | '2') => ({ type: 'redsys', merchant_code: PUBLIC_TEST_MERCHANT, terminal: n, secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' });

export async function startRedsysService(engine: EngineName, clock: TestClock, shop: string, terminal: '1' | '2'): Promise<{ t: TestService; double: RedsysDouble; api: Client; processorId: string }> {
  const double = await startRedsysDouble();
  const t = await startIsolatedService(engine, { now: clock.now, env: { REDSYS_URL: double.url } });
  const api = await t.newEnvironment(shop);
  const connected = await api.post('/processor/', redsysTerminal(terminal));
  expect(connected.status, connected.text).toBe(201);
  return { t, double, api, processorId: connected.body.id as string };
}
