import { describe, expect, it } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways, type ProcessorLoader } from '../../server/payments/registry';
import { createSandboxCard, SANDBOX_CARD_ID, sandboxGateways } from '../../server/payments/sandbox';

// Gateways by environment (registry.ts `of`): the shared ones, and each environment's
// connected processors' (active for new payments; a disconnected one's still found for
// the rows that name it).

const processorGateway = (id: string, code: string): Gateway => ({ ...createSandboxCard(), id, code, name: code, sandbox: false });
const STRIPE = processorGateway('0190f5a0-0000-7000-8000-0000000000e1', 'stripe-card');
const GONE = processorGateway('0190f5a0-0000-7000-8000-0000000000e2', 'old-card');

const loader: ProcessorLoader = async (environmentId) =>
  environmentId === 'env-a' ? { active: [STRIPE], all: [STRIPE, GONE] } : { active: [], all: [] };

describe('gateways of an environment', () => {
  it('adds the environment’s processors to the shared gateways, and only its own', async () => {
    const gateways = createGateways(sandboxGateways(), { processors: loader });
    const a = await gateways.of('env-a');
    const b = await gateways.of('env-b');
    expect(a.usable(true).map((g) => g.code)).toEqual(['stripe-card']);
    expect(a.forCurrency('EUR', true).map((g) => g.id)).toEqual([STRIPE.id]);
    expect(b.usable(true)).toEqual([]);
    expect(b.find(STRIPE.id)).toBeUndefined();
    // The shared set alone (metrics, notifications by code) never has a processor's.
    expect(gateways.find(STRIPE.id)).toBeUndefined();
    expect(a.usable(false).map((g) => g.code)).toEqual(['sandbox-card', 'sandbox-redirect']);
  });

  it('finds a disconnected processor’s gateway for the rows that name it, and offers it to nothing new', async () => {
    const a = await createGateways(sandboxGateways(), { processors: loader }).of('env-a');
    expect(a.find(GONE.id)?.code).toBe('old-card');
    expect(a.usable(true)).not.toContain(a.find(GONE.id));
    expect(a.forCurrency('EUR', true).map((g) => g.code)).not.toContain('old-card');
  });

  it('never lets a processor’s gateway stand in for a shared one of the same id', async () => {
    const impostor = processorGateway(SANDBOX_CARD_ID, 'impostor');
    const a = await createGateways(sandboxGateways(), { processors: async () => ({ active: [impostor], all: [impostor] }) }).of('env-a');
    expect(a.find(SANDBOX_CARD_ID)?.code).toBe('sandbox-card');
    expect(a.all.map((g) => g.code)).toEqual(['sandbox-card', 'sandbox-redirect']);
  });

  it('refuses a processor’s gateway that declares an origin that is not one https origin', async () => {
    const wide = { ...processorGateway('0190f5a0-0000-7000-8000-0000000000e3', 'wide'), origins: { script: ['https://*.example'] } };
    const gateways = createGateways(sandboxGateways(), { processors: async () => ({ active: [wide], all: [wide] }) });
    await expect(gateways.of('env-a')).rejects.toThrow(/not an https origin/);
  });

  it('extends: wraps shared and processor gateways alike, and keeps the loader', async () => {
    const seen: string[] = [];
    const wrap = (g: Gateway): Gateway => ({ ...g, pay: (input) => (seen.push(g.code), g.pay(input)) });
    const a = await createGateways(sandboxGateways(), { processors: loader }).extend({ wrap }).of('env-a');
    const signal = new AbortController().signal;
    await a.find(STRIPE.id)!.pay({ reference: 'r1', signal, amount: 100, currency: 'EUR', capture: true, fields: {} });
    await a.find(SANDBOX_CARD_ID)!.pay({ reference: 'r2', signal, amount: 100, currency: 'EUR', capture: true, fields: {} });
    expect(seen).toEqual(['stripe-card', 'sandbox-card']);
  });
});
