import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SIGN_IN_LIMIT_ACCOUNT, SIGN_IN_LIMIT_IP, SIGN_IN_WINDOW_MS } from '../../server/dashboard/accounts';
import { Browser, freshIp, inbox, linkIn, member, PASSWORD, uniqueEmail } from './dashboard';
import { type Client, describeWithSqlite, ENGINES, startTestService, type TestService, testClock } from './harness';
import { type ProcessEnv, usersHere } from './process';

// The dashboard's accounts over real HTTP: invites, passwords, sign-in and its throttle,
// sessions and their expiry, CSRF, roles and the isolation of environments.

describe.each(ENGINES)('dashboard accounts on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let other: Client;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now, env: { TRUST_PROXY: 'true' } });
    shop = await t.newEnvironment('Shop');
    other = await t.newEnvironment('Other shop');
  });
  afterAll(() => t?.close());

  const invite = async (email: string, env: Client, role: 'owner' | 'admin' | 'viewer' = 'owner') =>
    (await inviteUser(t.service.deps.database.db, { email, environmentId: env.keys.environment_id, role, invitedBy: null, now: clock.now() })).token;

  it('an invite from the CLI sets a password once, signs in, and shows the environment', async () => {
    const email = uniqueEmail('cli');
    const env: ProcessEnv = { DATA_DIR: t.dataDir, ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}) };
    const out = JSON.parse(await usersHere(['invite', '--email', email, '--environment', shop.keys.environment_id, '--role', 'owner', '--json'], env));
    expect(out.url).toMatch(/^http:\/\/localhost:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\/$/);
    const path = new URL(out.url).pathname;
    const browser = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    const form = await browser.get(path);
    expect(form.status).toBe(200);
    expect(form.text).toContain(email);

    for (const [password, message] of [
      ['short pass', 'at least 12 characters'],
      ['qwertyuiopasdfgh', 'common passwords'],
    ]) {
      const refused = await browser.post(path, { password: password! });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(message);
    }
    const done = await browser.post(path, { password: PASSWORD });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/');
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/dashboard\//);
    expect(cookie).not.toMatch(/Secure/);

    const home = await browser.get('/dashboard/');
    expect(home.status).toBe(200);
    expect(home.text).toContain(shop.keys.public_key);
    expect(home.text).not.toContain(other.keys.public_key);
    // The empty state: the first request, with the user's own public key.
    expect(home.text).toContain(`AppKeys ${shop.keys.public_key}:YOUR_SECRET_KEY`);

    // Single use: the same link again is refused, signed in or not.
    expect((await new Browser(t.url).get(path)).status).toBe(404);
    const again = new Browser(t.url);
    again.csrf = 'x';
    expect((await again.get(path)).status).toBe(404);
  }, 60_000);

  it('an invite expires after 24 hours', async () => {
    const token = await invite(uniqueEmail('late'), shop);
    clock.advance(24 * 3600_000 + 1000);
    try {
      const browser = new Browser(t.url);
      expect((await browser.get(`/dashboard/invite/${token}/`)).status).toBe(404);
    } finally {
      clock.reset();
    }
  });

  it('an existing user accepts an invite to a second environment with their password, then switches', async () => {
    const { browser, email } = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    const token = await invite(email, other, 'viewer');
    const page = await browser.get(`/dashboard/invite/${token}/`);
    expect(page.text).toContain('current password');
    expect((await browser.post(`/dashboard/invite/${token}/`, { password: 'not my password at all' })).status).toBe(400);
    expect((await browser.post(`/dashboard/invite/${token}/`, { password: PASSWORD })).status).toBe(303);

    const home = await browser.get('/dashboard/');
    expect(home.text).toContain(other.keys.public_key);
    expect(home.text).toContain('name="environment"');
    // Back to the first environment with the switcher.
    expect((await browser.post('/dashboard/environment/', { environment: shop.keys.environment_id })).status).toBe(303);
    expect((await browser.get('/dashboard/')).text).toContain(shop.keys.public_key);
  }, 60_000);

  // Issue 44: an owner's on-screen link chose the password of an account another
  // environment had invited, and that environment's invitee could no longer get in.
  it("an owner's on-screen link cannot set the password of an account another environment invited, nor tell it has none", async () => {
    const { browser: ownerA } = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    const invitedByB = uniqueEmail('invited-by-b');
    const pathB = `/dashboard/invite/${await invite(invitedByB, other, 'admin')}/`;
    const { email: hasPassword } = await member(t, other, 'viewer');
    const onScreen = async (email: string) => {
      await ownerA.get('/dashboard/team/');
      const created = await ownerA.post('/dashboard/team/invite/', { email, role: 'owner' });
      expect(created.status).toBe(201);
      const url = /(http:\/\/[^<\s]+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\/)/.exec(created.text)![1]!;
      return { page: created, path: new URL(url).pathname };
    };
    const pending = await onScreen(invitedByB);
    const existing = await onScreen(hasPassword);
    const fresh = await onScreen(uniqueEmail('fresh'));
    // The inviter's answer is the same for an account invited elsewhere, one with a password and a new one.
    const strip = (text: string, email: string) => text.replaceAll(email, 'EMAIL').replace(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}\//g, 'LINK').replace(/name="csrf" value="[^"]+"/g, '');
    const [a, b] = [strip(pending.page.text, invitedByB), strip(existing.page.text, hasPassword)];
    expect(a.replace(/<tbody>[\s\S]*<\/tbody>/, '')).toBe(b.replace(/<tbody>[\s\S]*<\/tbody>/, ''));
    expect(fresh.page.status).toBe(201);

    // Whoever holds the on-screen link sees the same page whether or not the account has a password…
    const thief = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    const pageOfPending = await thief.get(pending.path);
    const pageOfExisting = await new Browser(t.url).get(existing.path);
    expect(pageOfPending.status).toBe(200);
    expect(strip(pageOfPending.text, invitedByB)).toBe(strip(pageOfExisting.text, hasPassword));
    expect(pageOfPending.text).toContain('current password');
    expect(pageOfPending.text).not.toContain('New password');
    // …and cannot choose one: it is a wrong password, as for any account.
    const taken = await thief.post(pending.path, { password: 'the thief chose this one' });
    expect(taken.status).toBe(400);
    expect(taken.text).toContain('not your current password');
    expect(taken.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(invitedByB, 'the thief chose this one')).status).toBe(401);

    // B's invitee still sets the password from B's link, then joins A with it.
    const invitee = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await invitee.get(pathB)).text).toContain('New password');
    expect((await invitee.post(pathB, { password: PASSWORD })).status).toBe(303);
    expect((await invitee.get('/dashboard/')).text).toContain(other.keys.public_key);
    await invitee.get(pending.path);
    expect((await invitee.post(pending.path, { password: PASSWORD })).status).toBe(303);
    expect((await invitee.get('/dashboard/')).text).toContain('name="environment"');
  }, 60_000);

  it("an owner's invite goes by email: its link lets someone new set a password; the on-screen one does not", async () => {
    const { browser: owner, email: ownerEmail } = await member(t, shop, 'owner');
    const newcomer = uniqueEmail('newcomer');
    await owner.get('/dashboard/team/');
    const created = await owner.post('/dashboard/team/invite/', { email: newcomer, role: 'admin' });
    expect(created.text).toContain(`We emailed an invite to ${newcomer}`);
    const onScreen = new URL(/(http:\/\/[^<\s]+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\/)/.exec(created.text)![1]!).pathname;
    const [mail, ...more] = await inbox(t, newcomer);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe(`${ownerEmail} invited you to Shop`);
    expect(mail!.from?.value[0]?.name).toBe('Shop');
    expect(mail!.text).toContain('as admin');
    const emailed = linkIn(mail!, 'invite');
    expect(emailed).not.toBe(onScreen);
    // The on-screen link asks for a password the newcomer does not have.
    const browser = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await browser.get(onScreen)).text).toContain('Open the invite we emailed');
    expect((await browser.post(onScreen, { password: PASSWORD })).status).toBe(400);
    // The emailed one sets it, joins, and spends the on-screen one.
    const form = await browser.get(emailed);
    expect(form.text).toContain('New password');
    expect((await browser.post(emailed, { password: PASSWORD })).status).toBe(303);
    expect((await browser.get('/dashboard/')).text).toContain(shop.keys.public_key);
    expect((await new Browser(t.url).get(onScreen)).status).toBe(404);
    expect((await owner.get('/dashboard/team/')).text).toContain(newcomer);
  }, 60_000);

  it('an unknown email and a wrong password get the same answer; the right one signs in', async () => {
    const { email } = await member(t, shop, 'viewer');
    const ip = { 'x-forwarded-for': freshIp() };
    const unknownEmail = uniqueEmail('nobody');
    const unknown = await new Browser(t.url, ip).signIn(unknownEmail, PASSWORD);
    const wrong = await new Browser(t.url, ip).signIn(email, 'wrong password here');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const strip = (p: { text: string }, e: string) => p.text.replaceAll(e, 'EMAIL').replace(/name="csrf" value="[^"]+"/, '');
    expect(strip(unknown, unknownEmail)).toBe(strip(wrong, email));
    expect(unknown.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);

    const ok = await new Browser(t.url, ip).signIn(email.toUpperCase(), PASSWORD);
    expect(ok.status).toBe(303);
  }, 60_000);

  /** Once the throttle's window has passed, the right password signs in again. */
  async function signsInAfterTheWindow(email: string) {
    clock.advance(SIGN_IN_WINDOW_MS + 1000);
    try {
      expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(303);
    } finally {
      clock.reset();
    }
  }

  it('throttles per account: after the limit even the right password is 429 with Retry-After, until the window ends', async () => {
    const { email } = await member(t, shop, 'viewer');
    for (let i = 0; i < SIGN_IN_LIMIT_ACCOUNT; i++) {
      // A new IP each time: only the account's counter reaches its limit.
      expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, `wrong password ${i}`)).status).toBe(401);
    }
    const blocked = await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_WINDOW_MS / 1000);
    expect(blocked.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
    await signsInAfterTheWindow(email);
  }, 60_000);

  // The count was read before the password's scrypt and written after it: guesses sent at
  // once were all checked (60 of them, and the right one among them signed in).
  it('guesses sent at once are counted as they come: only the limit of them is checked', async () => {
    const { email } = await member(t, shop, 'viewer');
    const answers = await Promise.all(
      Array.from({ length: 3 * SIGN_IN_LIMIT_ACCOUNT }, (_, i) => new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, `wrong password ${i}`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(SIGN_IN_LIMIT_ACCOUNT).fill(401), ...Array(2 * SIGN_IN_LIMIT_ACCOUNT).fill(429)]);
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(429);
    await signsInAfterTheWindow(email);
  }, 60_000);

  it('throttles per IP across accounts', async () => {
    const ip = { 'x-forwarded-for': freshIp() };
    for (let i = 0; i < SIGN_IN_LIMIT_IP; i++) {
      expect((await new Browser(t.url, ip).signIn(uniqueEmail('guess'), 'wrong password')).status).toBe(401);
    }
    const { email } = await member(t, shop, 'viewer');
    const blocked = await new Browser(t.url, ip).signIn(email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(303);
  }, 120_000);

  it('without its CSRF token, or from another site, a post is 403 and does nothing', async () => {
    const { browser } = await member(t, shop, 'owner');
    const token = browser.csrf;
    expect((await browser.post('/dashboard/sign-out/', {}, { csrf: null })).status).toBe(403);
    expect((await browser.post('/dashboard/sign-out/', {}, { csrf: 'A'.repeat(43) })).status).toBe(403);
    expect((await browser.post('/dashboard/sign-out/', {}, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await browser.post('/dashboard/team/invite/', { email: uniqueEmail(), role: 'owner' }, { csrf: null })).status).toBe(403);
    expect((await browser.get('/dashboard/')).status).toBe(200);
    // The sign-in form too: without the cookie's token, 403.
    const anonymous = new Browser(t.url);
    expect((await anonymous.post('/dashboard/sign-in/', { email: 'a@b.example', password: PASSWORD }, { csrf: 'x' })).status).toBe(403);
    // The header works as well as the field.
    expect((await browser.post('/dashboard/sign-out/', {}, { csrf: null, headers: { 'x-csrf-token': token } })).status).toBe(303);
    expect((await browser.get('/dashboard/')).status).toBe(303);
  }, 60_000);

  it('sessions end when idle, at their absolute end, and everywhere on request', async () => {
    const { browser, email } = await member(t, shop, 'viewer');
    try {
      clock.advance(SESSION_IDLE_MS - 60_000);
      expect((await browser.get('/dashboard/')).status).toBe(200);
      clock.advance(SESSION_IDLE_MS - 60_000);
      expect((await browser.get('/dashboard/')).status).toBe(200);
      // Busy, but past the absolute end.
      while (clock.now().getTime() - Date.now() < SESSION_ABSOLUTE_MS) {
        expect((await browser.get('/dashboard/')).status).toBe(200);
        clock.advance(SESSION_IDLE_MS / 2);
      }
      const over = await browser.get('/dashboard/');
      expect(over.status).toBe(303);
      expect(over.location).toBe('/dashboard/sign-in/');
    } finally {
      clock.reset();
    }
    const idle = await new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await idle.signIn(email, PASSWORD)).status).toBe(303);
    clock.advance(SESSION_IDLE_MS + 1000);
    try {
      expect((await idle.get('/dashboard/')).status).toBe(303);
    } finally {
      clock.reset();
    }

    const a = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    const b = new Browser(t.url, { 'x-forwarded-for': freshIp() });
    expect((await a.signIn(email, PASSWORD)).status).toBe(303);
    expect((await b.signIn(email, PASSWORD)).status).toBe(303);
    await a.get('/dashboard/');
    expect((await a.post('/dashboard/sign-out-everywhere/', {})).status).toBe(303);
    expect((await b.get('/dashboard/')).status).toBe(303);
    expect((await a.get('/dashboard/')).status).toBe(303);
  }, 60_000);

  it('roles are enforced on the server: a viewer and an admin cannot manage the team', async () => {
    const { browser: owner } = await member(t, shop, 'owner');
    for (const role of ['viewer', 'admin'] as const) {
      const { browser } = await member(t, shop, role);
      const home = await browser.get('/dashboard/');
      expect(home.text).not.toContain('/dashboard/team/');
      expect((await browser.get('/dashboard/team/')).status).toBe(403);
      expect((await browser.get('/dashboard/audit/')).status).toBe(403);
      const email = uniqueEmail('sneaky');
      expect((await browser.post('/dashboard/team/invite/', { email, role: 'owner' })).status).toBe(403);
      expect((await owner.get('/dashboard/team/')).text).not.toContain(email);
      // Settings: every role reads them; a viewer may not change them, an admin may.
      expect((await browser.get('/dashboard/settings/')).status).toBe(200);
      expect((await browser.post('/dashboard/settings/', { display_name: `By ${role}` })).status).toBe(role === 'viewer' ? 403 : 303);
    }
    expect((await owner.get('/dashboard/settings/')).text).toContain('value="By admin"');
    const email = uniqueEmail('invited');
    const invited = await owner.post('/dashboard/team/invite/', { email, role: 'admin' });
    expect(invited.status).toBe(201);
    const url = /(http:\/\/[^<\s]+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\/)/.exec(invited.text)?.[1];
    expect(url).toBeDefined();
    expect((await new Browser(t.url).get(new URL(url!).pathname)).status).toBe(200);
    expect((await owner.post('/dashboard/team/invite/', { email: 'not an email', role: 'admin' })).status).toBe(400);
  }, 120_000);

  it('nothing of another environment is reachable: not by switching, not in the team or the audit log', async () => {
    const { browser, email } = await member(t, shop, 'owner');
    const { browser: stranger, email: strangerEmail } = await member(t, other, 'owner');
    // Switching to an environment that is not the user's: 403, and the session stays where it was.
    expect((await browser.post('/dashboard/environment/', { environment: other.keys.environment_id })).status).toBe(403);
    const home = await browser.get('/dashboard/');
    expect(home.text).toContain(shop.keys.public_key);
    expect(home.text).not.toContain(other.keys.public_key);
    const team = await browser.get('/dashboard/team/');
    expect(team.text).toContain(email);
    expect(team.text).not.toContain(strangerEmail);
    const audit = await browser.get('/dashboard/audit/');
    expect(audit.text).toContain(email);
    expect(audit.text).not.toContain(strangerEmail);
    // And the other way round.
    expect((await stranger.get('/dashboard/')).text).not.toContain(shop.keys.public_key);
    expect((await stranger.get('/dashboard/audit/')).text).not.toContain(email);
  }, 60_000);

  it('the audit log records sign-ins, failures and actions with who, what and from where', async () => {
    const ip = freshIp();
    const { browser: owner, email } = await member(t, shop, 'owner', { 'x-forwarded-for': ip });
    await new Browser(t.url, { 'x-forwarded-for': ip }).signIn(email, 'a wrong password');
    await new Browser(t.url, { 'x-forwarded-for': ip }).signIn(email, PASSWORD);
    const invited = uniqueEmail('audited');
    await owner.get('/dashboard/team/');
    await owner.post('/dashboard/team/invite/', { email: invited, role: 'viewer' });
    const log = (await owner.get('/dashboard/audit/')).text;
    for (const what of ['Accepted an invite', 'Failed sign-in', 'Signed in', `Invited ${invited} as viewer`]) expect(log).toContain(what);
    expect(log).toContain(ip);
  }, 60_000);

  // Issue 44: a NUL in the sign-in's email reached the throttle's insert and PostgreSQL
  // refused it: a 500 (and an error in the log) instead of the usual refusal.
  it('control characters and lone surrogates in the account forms get the usual refusal, never a 500', async () => {
    const { browser: owner, email } = await member(t, shop, 'owner');
    for (const bad of ['\u0000', '\ud800', '\u0007', '\n']) {
      const ip = { 'x-forwarded-for': freshIp() };
      for (const address of [`${bad}${email}`, `a${bad}@shop.example`]) {
        const refused = await new Browser(t.url, ip).signIn(address, PASSWORD);
        expect(refused.status, JSON.stringify(address)).toBe(401);
        expect(refused.text).toContain('do not match an account');
        expect(refused.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
      }
      await owner.get('/dashboard/team/');
      expect((await owner.post('/dashboard/team/invite/', { email: `x${bad}@shop.example`, role: 'viewer' })).status).toBe(400);
    }
    expect((await new Browser(t.url, { 'x-forwarded-for': freshIp() }).signIn(email, PASSWORD)).status).toBe(303);
    // A new password takes none either (scrypt would not even count trailing NULs).
    const path = `/dashboard/invite/${await invite(uniqueEmail('nul'), shop)}/`;
    const browser = new Browser(t.url);
    await browser.get(path);
    const refused = await browser.post(path, { password: `${PASSWORD}\u0000` });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('no control characters');
  }, 60_000);

  it('pages carry a strict CSP, refuse framing, and are never cached', async () => {
    const page = await new Browser(t.url).get('/dashboard/sign-in/');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script/i);
    expect((await new Browser(t.url).get('/dashboard/')).location).toBe('/dashboard/sign-in/');
    expect((await new Browser(t.url).get('/dashboard')).status).toBe(308);
  });
});

describeWithSqlite('dashboard cookies over https', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService('sqlite', { env: { PUBLIC_URL: 'https://pay.example' } });
  });
  afterAll(() => t?.close());

  it('are Secure when the public URL is https', async () => {
    const env = await t.newEnvironment();
    const { email } = await member(t, env, 'viewer', {});
    const browser = new Browser(t.url);
    // The public origin is what the browser sends as Origin.
    await browser.get('/dashboard/sign-in/');
    const signedIn = await browser.post('/dashboard/sign-in/', { email, password: PASSWORD }, { headers: { origin: 'https://pay.example' } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))).toMatch(/; Secure/);
  }, 30_000);
});
