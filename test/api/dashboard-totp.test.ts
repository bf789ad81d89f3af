import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHALLENGE_TTL_MS, inviteUser, SIGN_IN_LIMIT_ACCOUNT, SIGN_IN_WINDOW_MS } from '../../server/dashboard/accounts';
import { Browser, freshIp, inbox, linkIn, member, PASSWORD } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService, testClock } from './harness';

// The optional second factor over real HTTP: set up with an authenticator (its URI as text
// and as a QR code), confirmed with a first code, ten recovery codes shown once and stored
// hashed; sign-in asks for a code after the password, under the same throttle and audit;
// a code is good once; turned off only with password and code. Codes are computed here
// with the same library an authenticator app's algorithm is written in.

const STEP_MS = 30_000;

describe.each(ENGINES)('dashboard second factor on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now, env: { TRUST_PROXY: 'true' } });
    shop = await t.newEnvironment('Careful shop');
  });
  afterAll(() => t?.close());

  const codeOf = (secret: string, at = clock.now()) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at.getTime() });
  const db = () => t.service.deps.database.db;
  const actionsOf = async (email: string) =>
    (await db().selectFrom('audit_log').select(['action', 'detail']).where('email', '=', email).orderBy('id').execute()).map((r) => r.action);

  /** A member with the factor on: their browser, email, secret and recovery codes. */
  async function enrolled(role: 'viewer' | 'owner' = 'viewer') {
    const { browser, email } = await member(t, shop, role, { 'x-forwarded-for': freshIp() });
    expect((await browser.post('/dashboard/account/security/totp/', {})).status).toBe(303);
    const page = await browser.get('/dashboard/account/security/');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(page.text)![1]!;
    const done = await browser.post('/dashboard/account/security/totp/confirm/', { code: codeOf(secret) });
    expect(done.status, done.text.slice(0, 300)).toBe(200);
    const codes = [...done.text.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
    // The next code must be of a later step: the confirmation took this one.
    clock.advance(STEP_MS);
    return { browser, email, secret, codes };
  }

  /** Email and password on a new browser (its own address): the answer, and the browser for the code step. */
  async function passwordStep(email: string, ip = freshIp()) {
    const browser = new Browser(t.url, { 'x-forwarded-for': ip });
    return { browser, page: await browser.signIn(email, PASSWORD) };
  }

  it('sets up with a URI and a QR code, confirms with a code, and shows ten recovery codes once, stored hashed', async () => {
    const { browser, email } = await member(t, shop, 'viewer', { 'x-forwarded-for': freshIp() });
    const off = await browser.get('/dashboard/account/security/');
    expect(off.status).toBe(200);
    expect(off.text).toContain('Set up an authenticator app');
    expect((await browser.post('/dashboard/account/security/totp/', {})).status).toBe(303);
    const pending = await browser.get('/dashboard/account/security/');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(pending.text)?.[1];
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = /data-testid="totp-uri">([^<]+)</.exec(pending.text)![1]!.replaceAll('&amp;', '&');
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(new URL(uri).pathname)).toContain(email);
    const qr = /<img class="qr" src="data:image\/svg\+xml;base64,([^"]+)"[^>]* alt="([^"]+)"/.exec(pending.text);
    expect(Buffer.from(qr![1]!, 'base64').toString()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(qr![2]).toContain('QR code');
    // Until confirmed, sign-in asks for no code.
    expect((await passwordStep(email)).page.location).toBe('/dashboard/');

    const wrong = await browser.post('/dashboard/account/security/totp/confirm/', { code: codeOf(secret!, new Date(clock.now().getTime() - 10 * STEP_MS)) });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('That code does not match');
    const done = await browser.post('/dashboard/account/security/totp/confirm/', { code: codeOf(secret!) });
    expect(done.status).toBe(200);
    const codes = [...done.text.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(new Set(codes).size).toBe(10);
    // The seed is stored sealed (SECRETS_KEY): read as stored under another name, and as the service opens it.
    const confirmed = await db().selectFrom('user_totp').select((eb) => ['user_id', 'secret', eb.ref('secret').as('stored')]).where('confirmed_at', 'is not', null).execute();
    const { user_id, stored: sealed } = confirmed.find((row) => row.secret === secret)!;
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain(secret);
    const stored = await db().selectFrom('totp_recovery_codes').select('code_hash').where('user_id', '=', user_id).execute();
    expect(stored).toHaveLength(10);
    for (const { code_hash } of stored) {
      expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
      for (const code of codes) expect(code_hash).not.toContain(code.replace('-', ''));
    }
    // Shown once: the page afterwards counts them and shows none.
    const on = await browser.get('/dashboard/account/security/');
    expect(on.text).toContain('Recovery codes left: 10.');
    for (const code of codes) expect(on.text).not.toContain(code);
    expect(on.text).not.toContain(secret!);
    expect(await actionsOf(email)).toContain('totp_enabled');
  });

  it('asks for the code after the password; a code and a recovery code are each good once', async () => {
    const { email, secret, codes } = await enrolled();
    const { browser, page } = await passwordStep(email);
    expect(page.status).toBe(303);
    expect(page.location).toBe('/dashboard/sign-in/code/');
    // The password alone is no session.
    expect(page.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
    expect((await browser.get('/dashboard/')).status).toBe(303);
    const ask = await browser.get('/dashboard/sign-in/code/');
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Code from your authenticator app');

    const wrong = await browser.post('/dashboard/sign-in/code/', { code: '000000' === codeOf(secret) ? '111111' : '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('That code is not right');
    const code = codeOf(secret);
    const ok = await browser.post('/dashboard/sign-in/code/', { code });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/dashboard/');
    expect((await browser.get('/dashboard/')).status).toBe(200);

    // The same code again, on another sign-in within its step: refused.
    const again = await passwordStep(email);
    await again.browser.get('/dashboard/sign-in/code/');
    expect((await again.browser.post('/dashboard/sign-in/code/', { code })).status).toBe(401);
    // A recovery code, typed loosely: good once.
    const loose = ` ${codes[0]!.toUpperCase().replace('-', ' ')} `;
    expect((await again.browser.post('/dashboard/sign-in/code/', { code: loose })).status).toBe(303);
    const third = await passwordStep(email);
    await third.browser.get('/dashboard/sign-in/code/');
    expect((await third.browser.post('/dashboard/sign-in/code/', { code: codes[0]! })).status).toBe(401);
    // A challenge is spent by its sign-in: that browser cannot sign in with it a second time.
    expect((await again.browser.post('/dashboard/sign-in/code/', { code: codes[1]! })).status).toBe(401);

    const actions = await actionsOf(email);
    expect(actions.filter((a) => a === 'sign_in_failed').length).toBeGreaterThanOrEqual(3);
    expect(actions).toContain('signed_in_recovery');
    expect((await browser.get('/dashboard/account/security/')).text).toContain('Recovery codes left: 9.');
  });

  it('wrong codes count with wrong passwords: past the limit, 429 with Retry-After even for the right code', async () => {
    const { email, secret } = await enrolled();
    const { browser } = await passwordStep(email);
    await browser.get('/dashboard/sign-in/code/');
    for (let i = 0; i < SIGN_IN_LIMIT_ACCOUNT; i++) expect((await browser.post('/dashboard/sign-in/code/', { code: `12345${i}` === codeOf(secret) ? '999999' : `12345${i}` })).status).toBe(401);
    const blocked = await browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The account's counter: a new sign-in from elsewhere is refused at the password too.
    expect((await passwordStep(email)).page.status).toBe(429);
    clock.advance(SIGN_IN_WINDOW_MS + STEP_MS);
    const later = await passwordStep(email);
    await later.browser.get('/dashboard/sign-in/code/');
    expect((await later.browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) })).status).toBe(303);
  });

  // An invite to another environment, for an account that has a password and a second
  // factor: its password was tried without limit, and the right one started a session
  // with no code, a way into the account's own environments.
  it('an invite for an account with a second factor asks its code, and counts wrong passwords', async () => {
    const { email, secret } = await enrolled('owner');
    const other = await t.newEnvironment('Other shop');
    const invite = async () => {
      const { token } = await inviteUser(db(), { email, environmentId: other.keys.environment_id, role: 'viewer', invitedBy: null, now: clock.now() });
      const browser = new Browser(t.url, { 'x-forwarded-for': freshIp() });
      await browser.get(`/dashboard/invite/${token}/`);
      return { browser, path: `/dashboard/invite/${token}/` };
    };
    const guessing = await invite();
    for (let i = 0; i < SIGN_IN_LIMIT_ACCOUNT; i++) expect((await guessing.browser.post(guessing.path, { password: `wrong-${i}` })).status).toBe(400);
    const blocked = await guessing.browser.post(guessing.path, { password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await actionsOf(email)).toContain('sign_in_failed');
    clock.advance(SIGN_IN_WINDOW_MS + STEP_MS);

    const { browser, path } = await invite();
    const joined = await browser.post(path, { password: PASSWORD });
    expect(joined.status).toBe(303);
    expect(joined.location).toBe('/dashboard/sign-in/code/');
    expect((await browser.get('/dashboard/')).status).toBe(303);
    await browser.get('/dashboard/sign-in/code/');
    expect((await browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) })).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(200);
  });

  it('a code step without a live challenge starts the sign-in again', async () => {
    const { email, secret } = await enrolled();
    const stranger = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await stranger.get('/dashboard/sign-in/code/')).location).toBe('/dashboard/sign-in/');
    await stranger.get('/dashboard/sign-in/');
    const none = await stranger.post('/dashboard/sign-in/code/', { code: codeOf(secret) });
    expect(none.status).toBe(401);
    expect(none.text).toContain('The sign-in took too long');
    const { browser } = await passwordStep(email);
    await browser.get('/dashboard/sign-in/code/');
    clock.advance(CHALLENGE_TTL_MS + 1000);
    const late = await browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) });
    expect(late.status).toBe(401);
    expect(late.text).toContain('The sign-in took too long');
    // Without the CSRF token: 403 and nothing done.
    expect((await browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) }, { csrf: null })).status).toBe(403);
  });

  // A session opened with the password alone (another device's, or a thief's) outlived
  // turning the factor on, and one opened with a code outlived turning it off.
  it('turning the factor on or off ends the other sessions, not the one that asked', async () => {
    const { browser, email } = await member(t, shop, 'viewer', { 'x-forwarded-for': freshIp() });
    const other = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await other.signIn(email, PASSWORD)).status).toBe(303);
    expect((await other.get('/dashboard/')).status).toBe(200);
    expect((await browser.post('/dashboard/account/security/totp/', {})).status).toBe(303);
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec((await browser.get('/dashboard/account/security/')).text)![1]!;
    expect((await browser.post('/dashboard/account/security/totp/confirm/', { code: codeOf(secret) })).status).toBe(200);
    expect((await other.get('/dashboard/')).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(200);

    clock.advance(STEP_MS);
    const again = await passwordStep(email);
    await again.browser.get('/dashboard/sign-in/code/');
    expect((await again.browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) })).status).toBe(303);
    clock.advance(STEP_MS);
    await browser.get('/dashboard/account/security/');
    expect((await browser.post('/dashboard/account/security/totp/disable/', { password: PASSWORD, code: codeOf(secret) })).status).toBe(303);
    expect((await again.browser.get('/dashboard/')).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(200);
  });

  it('turns off only with the password and a code; a wrong password uses up no recovery code', async () => {
    const { browser, email, secret, codes } = await enrolled('owner');
    const wrongPassword = await browser.post('/dashboard/account/security/totp/disable/', { password: 'not the password at all', code: codes[0]! });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.text).toContain('The password or the code is not right');
    const wrongCode = await browser.post('/dashboard/account/security/totp/disable/', { password: PASSWORD, code: '12345' });
    expect(wrongCode.status).toBe(400);
    expect((await browser.post('/dashboard/account/security/totp/disable/', { password: PASSWORD, code: codeOf(secret) }, { csrf: null })).status).toBe(403);
    expect((await browser.get('/dashboard/account/security/')).text).toContain('Recovery codes left: 10.');
    const off = await browser.post('/dashboard/account/security/totp/disable/', { password: PASSWORD, code: codes[0]! });
    expect(off.status).toBe(303);
    expect((await browser.get('/dashboard/account/security/')).text).toContain('Set up an authenticator app');
    expect((await passwordStep(email)).page.location).toBe('/dashboard/');
    const actions = await actionsOf(email);
    expect(actions.filter((a) => a === 'totp_disable_failed')).toHaveLength(2);
    expect(actions).toContain('totp_disabled');
    // The owner reads it in the audit log.
    const audit = await browser.get('/dashboard/audit/');
    expect(audit.text).toContain('Turned off two-step sign-in');
    expect(audit.text).toContain('Failed to turn off two-step sign-in');
  });

  // Issue 44: a reset link proves the email, not the phone: the code is still asked.
  it('a password reset keeps the second factor: signing in with the new password asks for the code', async () => {
    const { email, secret } = await enrolled();
    const anonymous = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    await anonymous.get('/dashboard/sign-in/forgot/');
    expect((await anonymous.post('/dashboard/sign-in/forgot/', { email })).status).toBe(200);
    const link = linkIn((await inbox(t, email)).at(-1)!, 'reset');
    await anonymous.get(link);
    const token = new URLSearchParams(link.split('?')[1]).get('token')!;
    const reset = await anonymous.post('/dashboard/sign-in/reset/', { token, password: 'the new and long passphrase' });
    expect(reset.status).toBe(303);
    expect((await anonymous.get('/dashboard/')).status).toBe(303);
    const browser = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    const signIn = await browser.signIn(email, 'the new and long passphrase');
    expect(signIn.location).toBe('/dashboard/sign-in/code/');
    expect((await browser.get('/dashboard/')).status).toBe(303);
    await browser.get('/dashboard/sign-in/code/');
    expect((await browser.post('/dashboard/sign-in/code/', { code: codeOf(secret) })).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(200);
  });
});
