import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { keysCli, type ProcessEnv, usersCli } from '../api/process';

// The CLIs as the processes `npm run keys` and `npm run users` start: what only a process
// shows, its streams and its exit code. What each command does is tested with the command
// run in the test's process (test/api/keys-cli.test.ts, test/cli.ts).

describe.each(ENGINES)('the keys and users CLIs as processes on %s', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-keys-process-'));
  const env: ProcessEnv = { DATA_DIR: dataDir, ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}) };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  /** The process's exit code and stderr: 0 and '' when it ended well. */
  const ended = (args: string[]) => keysCli(args, env).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));

  it('create --json prints exactly one line, a JSON object with the new pair; exit 0', { timeout: 30_000 }, async () => {
    const stdout = await keysCli(['create', '--name', 'Shop', '--json'], env);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Shop', public_key: expect.stringMatching(/^pk_test_/), secret_key: expect.stringMatching(/^sk_test_/) });
  });

  it('a wrong command exits 2 with the usage on stderr; a refused one exits 3 with its reason alone', { timeout: 30_000 }, async () => {
    const wrong = await ended(['set', '--environment', 'no-such-environment', '--name', 'X']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^no environment no-such-environment\n\nUsage:\n {2}npm run keys -- create/);
    // An option the CLI does not know is a wrong command too, in parseArgs's words, not a stack trace.
    const unknown = await ended(['list', '--colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--colour'/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const sandbox = JSON.parse(await keysCli(['create', '--name', 'Sandbox', '--json'], env)) as { environment_id: string };
    const refused = await ended(['unpair', '--environment', sandbox.environment_id]);
    expect(refused).toEqual({ code: 3, stderr: `not unpaired: environment ${sandbox.environment_id} is in no pair\n` });
  });

  it('users invite prints a one-time link; with no such environment it exits 2', { timeout: 30_000 }, async () => {
    const { environment_id } = JSON.parse(await keysCli(['create', '--name', 'Team', '--json'], env)) as { environment_id: string };
    const out = JSON.parse(await usersCli(['invite', '--email', 'ana@shop.example', '--environment', environment_id, '--json'], env));
    expect(out).toMatchObject({ email: 'ana@shop.example', environment_id, role: 'owner', url: expect.stringMatching(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}\/$/) });
    await expect(usersCli(['invite', '--email', 'ana@shop.example', '--environment', 'nope'], env)).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^no environment nope\n\nUsage:/) });
  });
});
