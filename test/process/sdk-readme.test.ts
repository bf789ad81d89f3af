import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, type SnippetServer, startSnippetServer } from '../readme';
import { ENGINES, useTestService } from '../api/harness';
import { paidTransaction, payWithCard } from '../api/pay';

// The SDK's README (packages/sdk/README.md) as a reader copies it: the package is built
// (dist/, what `npm pack` ships), both examples are type-checked as written under strict
// tsc (module nodenext, skipLibCheck off: the shipped declarations must be clean), then run
// against the real service, importing `@checkout/sdk` through the workspace's link to the
// package. Only the service's address and the receiver's port are put in.

const ROOT = join(import.meta.dirname, '..', '..');
const README = 'packages/sdk/README.md';
const exec = promisify(execFile);
const README_ORIGIN = 'http://localhost:3000';
const tsc = (project: string) =>
  exec(process.execPath, ['node_modules/typescript-native/bin/tsc', '-p', project], { cwd: ROOT }).then(
    () => '',
    (e: { stdout: string; message: string }) => e.stdout || e.message,
  );

beforeAll(async () => {
  // The package's build (`npm run build` there), with the faster of the two compilers; the
  // types it compiles are generated before the tests (test/sdk-generated.ts).
  expect(await tsc('packages/sdk/tsconfig.build.json')).toBe('');
}, 120_000);

const shop = readmeBlock('ts', 'createClient', README);
const hooks = readmeBlock('ts', 'verifyWebhook(req.body', README);

/** The two examples as a reader's ES module package of their own in `dir`. */
function writeExamples(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'shop.ts'), shop);
  writeFileSync(join(dir, 'hooks.ts'), hooks);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }, files: ['shop.ts', 'hooks.ts'] }),
  );
}

// Type-checked once: the examples' types do not depend on the engine behind the service.
describe('SDK README', () => {
  it('both examples compile as written under strict tsc', async () => {
    const dir = join(ROOT, 'test', 'readme-snippets', 'sdk');
    writeExamples(dir);
    expect(await tsc(join(dir, 'tsconfig.json'))).toBe('');
  }, 120_000);
});

describe.each(ENGINES)('SDK README (%s)', (engine) => {
  const svc = useTestService(engine);
  const dir = join(ROOT, 'test', 'readme-snippets', `sdk-${engine}`);
  let receiver: SnippetServer | undefined;

  beforeAll(() => writeExamples(dir));
  afterEach(() => {
    receiver?.stop();
    receiver = undefined;
  });

  it('the example runs: a transaction (the same one again under its key), the paid ones with their sales, a refused refund, the brand', async () => {
    await paidTransaction(svc.api, { currency: 'EUR', order_id: 'paid-1', products: [{ amount: 1, product: { name: 'Kettle', price: 17 } }] });
    const file = join(dir, 'shop-here.ts');
    writeFileSync(file, shop.replaceAll(README_ORIGIN, svc.t.url));
    const run = async () =>
      (
        await exec(process.execPath, ['--import', 'tsx', file], {
          cwd: ROOT,
          env: { ...process.env, PUBLIC_KEY: svc.api.keys.public_key, SECRET_KEY: svc.api.keys.secret_key },
        })
      ).stdout
        .trim()
        .split('\n');
    const lines = await run();
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^pay at ${svc.t.url}/pay/[A-Za-z0-9_-]+/$`)),
      'paid paid-1 17 EUR',
      expect.stringMatching(/^refused 404 urn:problem:not-found \S+$/),
      'shop Test shop',
    ]);
    // Run again: its Idempotency-Key answers the transaction it made the first time.
    expect((await run())[0]).toBe(lines[0]);
    expect((await svc.api.get('/transaction/?order_id=1001')).body.count).toBe(1);
  }, 60_000);

  it('the receiver: a signed delivery is shipped (204), a forged or unsigned one is a 400; a signed return is thanked, an altered one refused', async () => {
    const webhookSecret = `whsec_${Buffer.from('sdk-readme-secret-0123456789abcd').toString('base64')}`;
    const returnSecret = ((await svc.api.get('/environment/return_secret/')).body as { secret: string }).secret;
    const server = await startSnippetServer(hooks, join(dir, 'hooks-here.ts'), {
      env: { WEBHOOK_SECRET: webhookSecret, RETURN_SECRET: returnSecret },
      nodeArgs: ['--import', 'tsx'],
      cwd: ROOT,
    });
    receiver = server;
    const { origin } = server;

    const id = 'msg_sdk_readme';
    const payload = JSON.stringify({ id, type: 'transaction.paid', created: new Date().toISOString(), data: { order_id: '1001' } });
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = (signature: string) => ({ 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': signature });
    const post = (init: RequestInit) => fetch(`${origin}/hooks`, { method: 'POST', ...init }).then((r) => r.status);
    expect(await post({ headers: headers(`v1,${Buffer.from('forged').toString('base64')}`), body: payload })).toBe(400);
    expect(await post({ headers: { 'content-type': 'application/json' }, body: payload })).toBe(400);
    expect(await post({ headers: headers(new Webhook(webhookSecret).sign(id, at, payload)), body: payload })).toBe(204);
    await expect.poll(() => server.output()).toContain('ship order 1001');

    // A real return: paid on the hosted page, back to return_url on the shop's origin.
    const tx = await svc.api.post('/transaction/', { currency: 'EUR', return_url: 'https://shop.example/thanks?order=1001', products: [{ amount: 1, product: { name: 'Mug', price: 12 } }] });
    const { location } = (await (await payWithCard(svc.t.url, tx.body.token)).json()) as { location: string };
    const back = location.replace('https://shop.example', origin);
    const thanks = await fetch(back);
    expect(thanks.status).toBe(200);
    expect(await thanks.text()).toContain('Thank you');
    expect((await fetch(back.replace('order=1001', 'order=1002'))).status).toBe(400);
    expect(server.output()).not.toMatch(/Error/);
  }, 60_000);
});
