import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_LIMIT_ACCOUNT } from '../../server/dashboard/accounts';
import { RESET_TTL_MS } from '../../server/notify/mail-account';
import { Browser, freshIp, inbox, linkIn, member, PASSWORD, uniqueEmail } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService, testClock } from './harness';

// "Forgot your password?" and "Change password" over real HTTP, the reset link read back
// from the email the service wrote to DATA_DIR/outbox/ (issue 44: a locked-out merchant
// needed an operator with a shell).

const NEW_PASSWORD = 'a brand new passphrase here';

describe.each(ENGINES)('dashboard passwords on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now, env: { TRUST_PROXY: 'true' } });
    shop = await t.newEnvironment('Shop');
  });
  afterAll(() => t?.close());

  const db = () => t.service.deps.database.db;
  const actionsOf = async (email: string) => (await db().selectFrom('audit_log').select('action').where('email', '=', email).execute()).map((r) => r.action);

  /** Asks for a reset link from a new browser; the page it answers. */
  async function askReset(email: string, ip = freshIp()) {
    const browser = new Browser(t.url, { 'x-forwarded-for': ip });
    await browser.get('/dashboard/sign-in/forgot/');
    return browser.post('/dashboard/sign-in/forgot/', { email });
  }

  it('a reset link read back from the email sets a new password once, ends every session, and an unknown email gets the same answer', async () => {
    const { browser: first, email } = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    const second = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await second.signIn(email, PASSWORD)).status).toBe(303);
    expect((await new Browser(t.url).get('/dashboard/sign-in/')).text).toContain('href="/dashboard/sign-in/forgot/"');

    const ip = freshIp();
    const known = await askReset(email.toUpperCase(), ip);
    const unknownEmail = uniqueEmail('nobody');
    const unknown = await askReset(unknownEmail, ip);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const strip = (text: string, e: string) => text.replaceAll(e, 'EMAIL').replace(/name="csrf" value="[^"]+"/g, '');
    expect(strip(known.text, email.toUpperCase())).toBe(strip(unknown.text, unknownEmail));
    expect(known.text).toContain('If EMAIL belongs to an account'.replace('EMAIL', email.toUpperCase()));
    // Queued without its link: no usable token is stored, not even in the queue.
    const queued = await db().selectFrom('mails').select('content').where('kind', '=', 'password_reset').where('recipient', '=', email).executeTakeFirstOrThrow();
    expect(queued.content).not.toMatch(/token=/);

    expect(await inbox(t, unknownEmail)).toHaveLength(0);
    const [mail, ...more] = await inbox(t, email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('Reset your dashboard password');
    const link = linkIn(mail!, 'reset');
    expect(mail!.html).toContain(`${t.url}${link}`.replaceAll('&', '&amp;'));
    // Stored hashed only.
    const token = new URLSearchParams(link.split('?')[1]).get('token')!;
    const rows = await db().selectFrom('password_resets').selectAll().execute();
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.some((r) => r.token_hash.length === 64)).toBe(true);

    const browser = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    const form = await browser.get(link);
    expect(form.status).toBe(200);
    expect(form.text).toContain(email);
    for (const [password, message] of [
      ['short pass', 'at least 12 characters'],
      [`${NEW_PASSWORD}\u0000`, 'no control characters'],
    ]) {
      const refused = await browser.post('/dashboard/sign-in/reset/', { token, password: password! });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(message);
    }
    const done = await browser.post('/dashboard/sign-in/reset/', { token, password: NEW_PASSWORD });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/sign-in/?reset=1');
    expect(done.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
    expect((await browser.get('/dashboard/sign-in/?reset=1')).text).toContain('Your password has been changed');

    // Every session ended: both devices signed in before are out.
    expect((await first.get('/dashboard/')).status).toBe(303);
    expect((await second.get('/dashboard/')).status).toBe(303);
    // The link worked once.
    expect((await new Browser(t.url).get(link)).status).toBe(404);
    expect((await browser.post('/dashboard/sign-in/reset/', { token, password: 'yet another passphrase' })).status).toBe(404);
    // The old password no longer signs in; the new one does.
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(401);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, NEW_PASSWORD)).status).toBe(303);
    expect(await actionsOf(email)).toEqual(expect.arrayContaining(['password_reset_requested', 'password_reset']));
  }, 60_000);

  it('a reset link expires after an hour, and a newer password makes it useless', async () => {
    const { email } = await member(t, shop, 'viewer');
    await askReset(email);
    const late = linkIn((await inbox(t, email)).at(-1)!, 'reset');
    await askReset(email);
    const used = linkIn((await inbox(t, email)).at(-1)!, 'reset');
    await askReset(email);
    const spare = linkIn((await inbox(t, email)).at(-1)!, 'reset');
    const token = (link: string) => new URLSearchParams(link.split('?')[1]).get('token')!;
    const browser = new Browser(t.url);
    await browser.get(used);
    expect((await browser.post('/dashboard/sign-in/reset/', { token: token(used), password: NEW_PASSWORD })).status).toBe(303);
    // The account's other links are spent by the new password.
    expect((await new Browser(t.url).get(spare)).status).toBe(404);
    clock.advance(RESET_TTL_MS + 1000);
    try {
      const page = await new Browser(t.url).get(late);
      expect(page.status).toBe(404);
      expect(page.text).toContain('This link cannot be used');
    } finally {
      clock.reset();
    }
  }, 60_000);

  it('asking for links is throttled like sign-in, the same for an unknown email, without touching sign-in', async () => {
    const { email } = await member(t, shop, 'viewer');
    const unknownEmail = uniqueEmail('nobody');
    for (const address of [email, unknownEmail]) {
      for (let i = 0; i < SIGN_IN_LIMIT_ACCOUNT; i++) expect((await askReset(address)).status).toBe(200);
      const blocked = await askReset(address);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await inbox(t, email)).toHaveLength(SIGN_IN_LIMIT_ACCOUNT);
    // Its own counters: the account still signs in.
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(303);
  }, 60_000);

  it('changing the password asks for the current one, ends the other sessions, keeps this one, and is audited', async () => {
    const { browser, email } = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    const other = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await other.signIn(email, PASSWORD)).status).toBe(303);
    const page = await browser.get('/dashboard/account/security/');
    expect(page.text).toContain('action="/dashboard/account/security/password/"');

    const wrong = await browser.post('/dashboard/account/security/password/', { current: 'not the password at all', password: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('not your current password');
    for (const [password, message] of [
      ['short pass', 'at least 12 characters'],
      [`${NEW_PASSWORD}\u0000`, 'no control characters'],
      ['qwertyuiopasdfgh', 'common passwords'],
    ]) {
      const refused = await browser.post('/dashboard/account/security/password/', { current: PASSWORD, password: password! });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(message);
    }
    // A stolen session's post without the page's token does nothing.
    expect((await browser.post('/dashboard/account/security/password/', { current: PASSWORD, password: NEW_PASSWORD }, { csrf: null })).status).toBe(403);
    expect((await other.get('/dashboard/')).status).toBe(200);

    const changed = await browser.post('/dashboard/account/security/password/', { current: PASSWORD, password: NEW_PASSWORD });
    expect(changed.status).toBe(303);
    expect((await browser.get(changed.location!)).text).toContain('Your password has been changed');
    expect((await other.get('/dashboard/')).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(200);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(401);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, NEW_PASSWORD)).status).toBe(303);
    const audit = await browser.get('/dashboard/audit/');
    expect(audit.text).toContain('Changed the password');
    expect(audit.text).toContain('Failed to change the password');
  }, 60_000);

  it('wrong current passwords count towards the sign-in limits', async () => {
    const { browser, email } = await member(t, shop, 'viewer', { 'x-forwarded-for': freshIp() });
    for (let i = 0; i < SIGN_IN_LIMIT_ACCOUNT; i++) {
      expect((await browser.post('/dashboard/account/security/password/', { current: `wrong password ${i}`, password: NEW_PASSWORD })).status).toBe(400);
    }
    const blocked = await browser.post('/dashboard/account/security/password/', { current: PASSWORD, password: NEW_PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(429);
  }, 60_000);

  it('a malformed email, control characters or a foreign token get the usual refusal, never a 500', async () => {
    for (const email of ['not an email', 'a\u0000@shop.example', '\ud800@shop.example', `${'x'.repeat(320)}@shop.example`]) {
      const refused = await askReset(email);
      expect(refused.status, JSON.stringify(email)).toBe(400);
      expect(refused.text).toContain('Enter an email address');
    }
    const browser = new Browser(t.url);
    await browser.get('/dashboard/sign-in/forgot/');
    for (const query of ['', 'x', 'A'.repeat(43), `${'A'.repeat(42)}%00`, '%ED%A0%80'.repeat(43), `${'A'.repeat(43)}&token=B`]) {
      expect((await browser.get(`/dashboard/sign-in/reset/?token=${query}`)).status, query).toBe(404);
    }
    for (const token of ['', 'x', 'A'.repeat(43), `${'A'.repeat(42)}\u0000`, '\ud800'.repeat(43)]) {
      expect((await browser.post('/dashboard/sign-in/reset/', { token, password: NEW_PASSWORD })).status).toBe(404);
    }
    // Without the form's token, or from another site: 403 and nothing sent.
    const { email } = await member(t, shop, 'viewer');
    const anonymous = new Browser(t.url);
    await anonymous.get('/dashboard/sign-in/forgot/');
    expect((await anonymous.post('/dashboard/sign-in/forgot/', { email }, { csrf: 'x' })).status).toBe(403);
    expect((await anonymous.post('/dashboard/sign-in/forgot/', { email }, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(await inbox(t, email)).toHaveLength(0);
  }, 60_000);
});
