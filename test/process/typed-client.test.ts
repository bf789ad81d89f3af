import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../server/domain/event-types';
import { ENGINES, rawRequest, useTestService } from '../api/harness';
import { payToken } from '../api/pay';

// A typed client made from the published document by tools nobody here wrote:
// openapi-typescript (its defaults) generates the types, openapi-fetch makes the calls.
// test/typed-client/flow.ts, a merchant's flow written against those types, must pass
// strict tsc (TypeScript 6, the compiler API version, and 7, the one `npm run typecheck`
// uses) and then run against the real service. The generated file is never committed:
// it is made here, in test/typed-client/generated/ (ignored by git, eslint and the root
// tsconfig, which is why the flow is imported by URL).

const DIR = join(import.meta.dirname, '..', 'typed-client');
const GENERATED = join(DIR, 'generated');

interface FlowModule {
  merchantFlow(baseUrl: string, authorization: string, pay: (token: string) => Promise<void>): Promise<Record<string, any>>;
}

const run = (file: string, args: string[]) => {
  try {
    execFileSync(process.execPath, [file, ...args], { cwd: join(DIR, '..', '..'), encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
};

// The document is the same on every engine (it is generated from the route declarations),
// so the types are made and type-checked once; the flow runs on each engine.
describe('typed client types', () => {
  const svc = useTestService('sqlite');

  beforeAll(async () => {
    const doc = await rawRequest(`${svc.t.url}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    mkdirSync(GENERATED, { recursive: true });
    const source = join(GENERATED, 'openapi.json');
    writeFileSync(source, doc.text);
    expect(run('node_modules/openapi-typescript/bin/cli.js', [source, '-o', join(GENERATED, 'api.d.ts')])).not.toMatch(/error/i);
  }, 60_000);

  it('the flow and a handler of every event type-check under strict tsc with the generated types (TypeScript 6 and 7)', () => {
    const project = join(DIR, 'tsconfig.json');
    expect(run('node_modules/typescript/bin/tsc', ['-p', project])).toBe('');
    expect(run('node_modules/typescript-native/bin/tsc', ['-p', project])).toBe('');
  }, 120_000);
});

describe.each(ENGINES)('typed client on %s', (engine) => {
  const svc = useTestService(engine);

  it('the document has a webhook for every event type, its body typed by the object schema', async () => {
    const doc = (await rawRequest(`${svc.t.url}/v1/openapi.json`)).body as { webhooks: Record<string, any> };
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(doc.webhooks['sale.refunded'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SaleRefundedEvent' });
  });

  it('runs a merchant flow over HTTP: catalogue, transactions, pages, payment, capture, refund, replay, typed errors', async () => {
    const flow = (await import(/* @vite-ignore */ pathToFileURL(join(DIR, 'flow.ts')).href)) as FlowModule;
    const result = await flow.merchantFlow(svc.t.url, svc.api.auth, async (token) => {
      expect(await payToken(svc.t.url, token)).toBe(200);
    });
    expect(result.pages).toEqual({ first: 1, second: 1, next: expect.stringMatching(/^http:\/\/.*\/v1\/transaction\/\?.*page=2/) });
    expect(result.captured).toBe(24);
    expect(result.refunded).toBe(5);
    expect(result.replayed).toBe('true');
    expect(result.sameTransaction).toBe(true);
    expect(result.notFound).toMatchObject({ type: 'urn:problem:not-found', status: 404 });
    expect(result.overRefund).toMatchObject({ type: 'urn:problem:conflict', status: 409 });
  }, 60_000);
});
