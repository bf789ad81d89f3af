import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, type SnippetServer, startSnippetServer } from '../readme';
import { rawRequest, useTestService } from '../api/harness';

// The README's snippets as a reader copies them: the curl of quick start 1 run by a shell,
// the webhook receiver of quick start 3 run by Node (a bad signature must be a 400, not a
// crash's 500), and the typed client of quick start 4 type-checked by strict tsc (module
// nodenext, as written: its `.js` import, `node:process`) and then run. Only the service's
// address (and the receiver's port) are put in. Files go to test/readme-snippets/
// (ignored by git, eslint and the root tsconfig), inside the repository so that the
// snippets' imports resolve to its node_modules, as they would in the reader's project.

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'test', 'readme-snippets');
const exec = promisify(execFile);
const README_ORIGIN = 'http://localhost:3000';

// On one engine: the snippets are clients of the HTTP API, which the API suite runs on
// both; what they cost here is processes (a shell, Node, tsc).
describe('README snippets', () => {
  const svc = useTestService('sqlite');
  let receiver: SnippetServer | undefined;

  beforeAll(() => mkdirSync(DIR, { recursive: true }));
  afterEach(() => {
    receiver?.stop();
    receiver = undefined;
  });

  it('quick start 1: the curl creates a transaction and prints its payment_url', async () => {
    const curl = readmeBlock('sh', 'curl -s http://localhost:3000/v1/transaction/');
    const { stdout } = await exec('bash', ['-c', curl.replaceAll(README_ORIGIN, svc.t.url)], {
      env: { ...process.env, PUBLIC_KEY: svc.api.keys.public_key, SECRET_KEY: svc.api.keys.secret_key },
    });
    const made = JSON.parse(stdout) as { id: string; payment_url: string; order_id: string };
    expect(made.order_id).toBe('1001');
    expect(made.payment_url).toMatch(new RegExp(`^${svc.t.url}/pay/`));
    expect((await svc.api.get(`/transaction/${made.id}/`)).status).toBe(200);
  });

  it("quick start 1 after the first start: its printed export line, pasted into a shell, is all the curl needs", async () => {
    const { demoInstructions } = await import('../../server/demo');
    const exported = demoInstructions(svc.api.keys, svc.t.url, '4242 4242 4242 4242')
      .split('\n')
      .find((line) => line.trim().startsWith('export '))!;
    expect(exported).toContain(`WEBHOOK_SECRET=${svc.api.keys.webhook_secret}`);
    const curl = readmeBlock('sh', 'curl -s http://localhost:3000/v1/transaction/');
    // No PUBLIC_KEY or SECRET_KEY from the test's environment: only what the line exports.
    const { PUBLIC_KEY: _p, SECRET_KEY: _s, ...clean } = process.env;
    const { stdout } = await exec('bash', ['-c', `${exported.trim()}\n${curl.replaceAll(README_ORIGIN, svc.t.url)}`], { env: clean });
    const made = JSON.parse(stdout) as { return_url: string; status: string };
    // Its first successful payment goes back to a page that exists: the demo shop's.
    expect(made.return_url).toBe(`${svc.t.url}/demo/?paid=1`);
  });

  it('quick start 3: the webhook receiver answers 204 to a signed event, 400 to a bad or missing signature', async () => {
    const secret = `whsec_${Buffer.from('readme-snippet-secret-0123456789').toString('base64')}`;
    const code = readmeBlock('js', "wh.verify(req.body, req.headers)");
    // Port 0, and the one it got printed: tests never take a fixed port.
    const server = await startSnippetServer(code, join(DIR, 'hooks.mjs'), { env: { WEBHOOK_SECRET: secret } });
    receiver = server;
    const url = `${server.origin}/hooks`;
    const id = 'msg_readme_1';
    const payload = JSON.stringify({ type: 'transaction.paid', timestamp: new Date().toISOString(), data: { order_id: '1001' } });
    // One instant for the signature and its header: a second ticking between them would break it.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const signed = new Webhook(secret).sign(id, at, payload);
    const headers = (signature: string) => ({
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(at.getTime() / 1000),
      'webhook-signature': signature,
    });

    const bad = await fetch(url, { method: 'POST', headers: headers('v1,' + Buffer.from('forged').toString('base64')), body: payload });
    expect(bad.status).toBe(400);
    const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
    expect(unsigned.status).toBe(400);
    const good = await fetch(url, { method: 'POST', headers: headers(signed), body: payload });
    expect(good.status).toBe(204);
    await expect.poll(() => server.output()).toContain('ship order 1001');
    expect(server.output()).not.toMatch(/Error/);
  });

  it('quick start 4: the typed client compiles as written under strict tsc (nodenext) and runs', async () => {
    const doc = await rawRequest(`${svc.t.url}/v1/openapi.json`);
    writeFileSync(join(DIR, 'openapi.json'), doc.text);
    await exec(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', join(DIR, 'openapi.json'), '-o', join(DIR, 'payment-api.d.ts')], { cwd: ROOT });
    const code = readmeBlock('ts', "from 'openapi-fetch'");
    writeFileSync(join(DIR, 'pay.ts'), code);
    writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(DIR, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }, files: ['pay.ts'] }),
    );
    // TypeScript 7, the compiler `npm run typecheck` uses (test/process/typed-client.test.ts runs 6 too).
    const result = await exec(process.execPath, ['node_modules/typescript-native/bin/tsc', '-p', join(DIR, 'tsconfig.json')], { cwd: ROOT }).catch(
      (e: { stdout: string }) => e,
    );
    expect(result.stdout).toBe('');
    writeFileSync(join(DIR, 'pay-here.ts'), code.replaceAll(README_ORIGIN, svc.t.url));
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', join(DIR, 'pay-here.ts')], {
      cwd: ROOT,
      env: { ...process.env, PUBLIC_KEY: svc.api.keys.public_key, SECRET_KEY: svc.api.keys.secret_key },
    });
    expect(stdout.trim()).toMatch(new RegExp(`^${svc.t.url}/pay/[A-Za-z0-9_-]+/$`));
  }, 240_000);
});
