import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { ENGINES, type Client, startTestService, type TestService } from './harness';
import { priced } from './pay';

// A gateway's own origins (its script, frames, API, a form it posts to: payments/gateway.ts
// `origins`) join the Content-Security-Policy of the hosted pages that offer it, and of no
// other page; an origin that is not exactly one https origin stops the start.

const ORIGINS = {
  script: ['https://js.processor.example'],
  frame: ['https://frames.processor.example'],
  connect: ['https://api.processor.example'],
  form: ['https://pay.processor.example'],
};

const processor = (origins: Gateway['origins']): Gateway => ({
  ...createSandboxCard(),
  id: '0190f5a0-0000-7000-8000-0000000000d1',
  code: 'processor',
  name: 'Processor',
  currencies: ['USD'],
  origins,
});

const directives = (csp: string) => Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

describe.each(ENGINES)('gateway origins on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService(engine, { gateways: createGateways([...sandboxGateways(), processor(ORIGINS)]) });
    api = await t.newEnvironment('Origins shop');
  });
  afterAll(() => t?.close());

  const cspOf = async (currency: string) => {
    const created = await api.post('/transaction/', priced(currency, 10));
    expect(created.status, created.text).toBe(201);
    // Twice: the first rendering, then the kept one (page-cache.ts) must carry them alike.
    const first = (await fetch(`${t.url}/pay/${created.body.token}/`)).headers.get('content-security-policy')!;
    const kept = (await fetch(`${t.url}/pay/${created.body.token}/`)).headers.get('content-security-policy')!;
    expect(kept.replace(/'nonce-[^']+'/, '')).toBe(first.replace(/'nonce-[^']+'/, ''));
    return directives(first);
  };

  it('a page that offers the gateway allows its origins, each in its own directive', async () => {
    const csp = await cspOf('USD');
    expect(csp['script-src']).toEqual([expect.stringMatching(/^'nonce-/), ...ORIGINS.script]);
    expect(csp['frame-src']).toEqual(ORIGINS.frame);
    expect(csp['connect-src']).toEqual(["'self'", ...ORIGINS.connect]);
    expect(csp['form-action']).toEqual(expect.arrayContaining(["'self'", ...ORIGINS.form]));
    expect(csp['default-src']).toEqual(["'none'"]);
  });

  it('a page that does not offer it allows none of them, and frames nothing', async () => {
    const csp = await cspOf('EUR');
    const all = Object.values(csp).flat().join(' ');
    for (const origin of Object.values(ORIGINS).flat()) expect(all).not.toContain(origin);
    expect(csp['frame-src']).toBeUndefined();
  });

  it('a declared origin that is not exactly one https origin stops the start', () => {
    for (const bad of ["'unsafe-inline'", 'http://js.processor.example', 'https://js.processor.example/path', 'https://*.processor.example', 'https://a.example https://b.example']) {
      expect(() => createGateways([processor({ script: [bad] })]), bad).toThrow(/not an https origin/);
    }
  });

  it('the subdomains of a host declared exactly may load, frame and answer; never a bare suffix, another host’s, or a place to send the customer', () => {
    const js = 'https://js.processor.example';
    const subdomains = 'https://*.js.processor.example';
    expect(() => createGateways([processor({ script: [js, subdomains], frame: [subdomains], connect: [subdomains] })])).not.toThrow();
    for (const origins of [
      { script: [subdomains] },
      { script: [js, 'https://*.processor.example'] },
      { script: [js, 'https://*.example'] },
      { script: ['https://*'] },
      { script: [js, 'https://*.js.processor.example:8443'] },
      { script: [js, 'http://*.js.processor.example'] },
      { script: [js], redirect: [subdomains] },
      { script: [js], form: [subdomains] },
    ] satisfies Gateway['origins'][]) {
      expect(() => createGateways([processor(origins)]), JSON.stringify(origins)).toThrow(/not an https origin/);
    }
  });
});
