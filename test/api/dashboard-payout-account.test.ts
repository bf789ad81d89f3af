import type { ParsedMail } from 'mailparser';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { PAYOUT_HOLD_MS } from '../../server/payments/payout-account';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { type Browser, freshIp, inbox, member } from './dashboard';
import { IBANS } from './documents';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { startIsolatedService } from './database';
import { paidTransaction, priced } from './pay';

// The Balance page's bank account and schedule over real HTTP: an owner's change proven by
// the password (and the second factor's code when it is on) under the sign-in limits,
// audited with the accounts masked, an email to every owner; a new account holds every
// payout ("Pay out now", the API's, the schedule's) until an owner confirms it from that
// email or 72 hours pass on the service's clock. The API's PATCH holds the same way.

const NO_FEE = { percentE2: 0n, fixed: 0n };
const CONFIRM_LINK = /https?:\/\/\S+(\/dashboard\/balance\/bank-account\/confirm\/[A-Za-z0-9_-]{43}\/)/g;

/** The confirm link of an email, as a path; null when it has none. */
function confirmLinkIn(mail: ParsedMail): string | null {
  const links = [...new Set([...String(mail.text).matchAll(CONFIRM_LINK)].map((m) => m[1]!))];
  if (links.length > 1) throw new Error(`confirm links in the email: ${links.length}`);
  return links[0] ?? null;
}

describe.each(ENGINES)('dashboard payout bank account on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let other: Client;
  let owner: { browser: Browser; email: string };
  let partner: { browser: Browser; email: string };
  let stranger: Browser;
  const db = () => t.service.deps.database.db;
  const env = () => shop.keys.environment_id;
  const settings = async () => (await shop.get('/payout_settings/')).body;
  const audit = async (action: string) => (await auditOf(db(), env(), { limit: 1000, offset: 0, action })).map((r) => JSON.parse(r.detail ?? 'null'));
  const owed = async () => {
    await paidTransaction(shop, priced('EUR', 10));
    while ((await t.service.jobs.runOnce(JOB_NAMES.balance)) > 0);
  };
  const payOutNow = (b: Browser) => b.post('/dashboard/balance/pay-out/', { currency: 'EUR', confirm: 'yes' });
  /** The owner's change through the form; the page they get. */
  /** Sessions end after 2 idle hours: after moving the clock, the owners sign in again (new members). */
  const signInAgain = async () => {
    owner = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    partner = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
  };
  const change = async (b: Browser, form: Record<string, string>) => {
    await b.get('/dashboard/balance/');
    return b.post('/dashboard/balance/bank-account/', form);
  };
  /** The newest email to `email`, with its confirm link. */
  const lastMail = async (email: string) => {
    // Each change mails every owner: more than one round of the mail job may be queued.
    while ((await t.service.jobs.runOnce(JOB_NAMES.mail)) > 0);
    const mails = await inbox(t, email);
    const mail = mails.at(-1);
    return { mail, link: mail ? confirmLinkIn(mail) : null, count: mails.length };
  };

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now: clock.now, env: { TRUST_PROXY: 'true' } });
    shop = await t.newEnvironment('Bank account shop');
    other = await t.newEnvironment('Other shop');
    await setPricing(db(), env(), { charge: NO_FEE, refund: NO_FEE, settlementDelayDays: 0 }, clock.now());
    // A first bank account is not held: nothing was paid anywhere before it.
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES, account_holder_name: 'Tienda Ejemplo SL', schedule: 'manual' })).status).toBe(200);
    expect((await settings()).iban).toBe(IBANS.ES);
    owner = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    partner = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    stranger = (await member(t, other, 'owner', { 'x-forwarded-for': freshIp() })).browser;
  });
  afterAll(() => t?.close());

  it('shows owners the form with the password field; viewers and admins see the account read-only and get 403', async () => {
    const page = await owner.browser.get('/dashboard/balance/');
    expect(page.text).toContain('data-testid="payout-account-form"');
    expect(page.text).toContain('autocomplete="current-password"');
    expect(page.text).not.toContain('name="code"');
    for (const role of ['viewer', 'admin'] as const) {
      const { browser } = await member(t, shop, role);
      const theirs = await browser.get('/dashboard/balance/');
      expect(theirs.text).not.toContain('data-testid="payout-account-form"');
      expect(theirs.text).toContain('Only an owner can change the bank account and schedule.');
      expect((await browser.post('/dashboard/balance/bank-account/', { iban: IBANS.DE, password: 'correct horse battery staple' })).status).toBe(403);
    }
    expect((await settings()).iban).toBe(IBANS.ES);
  });

  it('refuses a wrong password with the words used elsewhere, stores nothing, audits the failure; checks the IBAN as the API does', async () => {
    const wrong = await change(owner.browser, { iban: IBANS.DE, account_holder_name: 'Neue GmbH', schedule: 'weekly', password: 'not my password at all' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The password or the code is not right. Nothing was changed.');
    // Nothing typed is lost but the password, which is marked.
    expect(wrong.text).toContain(`value="${IBANS.DE}"`);
    expect(wrong.text).toContain('value="Neue GmbH"');
    expect(wrong.text).toMatch(/<option value="weekly" selected/);
    expect(wrong.text).toMatch(/<input id="payout-password"[^>]*aria-invalid="true"/);
    expect((await settings()).iban).toBe(IBANS.ES);
    expect(await audit('payout_settings_change_failed')).toHaveLength(1);
    const bad = await change(owner.browser, { iban: 'ES91 2100 0418 4502 0005 1333', account_holder_name: 'Tienda', schedule: 'daily', password: 'correct horse battery staple' });
    expect(bad.status).toBe(400);
    const api = await shop.patch('/payout_settings/', { iban: 'ES91 2100 0418 4502 0005 1333' });
    expect(api.status).toBe(400);
    // The field named by its label, as the form shows it, and marked; what was typed kept.
    expect(bad.text).toContain(`IBAN: ${api.body.errors[0].message}`);
    expect(bad.text).toMatch(/<input id="payout-iban"[^>]*value="ES91 2100 0418 4502 0005 1333"[^>]*aria-invalid="true"/);
    expect(bad.text).toMatch(/<option value="daily" selected/);
    expect((await settings()).iban).toBe(IBANS.ES);
  });

  it('a new account with the right password holds every payout until an owner confirms it from the email', async () => {
    await owed();
    const before = (await lastMail(partner.email)).count;
    const done = await change(owner.browser, { iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: '', schedule: 'manual', password: 'correct horse battery staple' });
    expect(done.status, done.text.slice(0, 300)).toBe(303);
    expect(done.location).toBe('/dashboard/balance/?account=changed');
    expect((await settings()).iban).toBe(IBANS.DE);
    expect((await settings()).account_holder_name).toBe('Tienda Ejemplo SL');
    const until = new Date(Date.parse((await settings()).updated) + PAYOUT_HOLD_MS).toISOString();
    // Newest first: this change, then the first account's (set through the API, not held).
    expect(await audit('payout_settings_changed')).toEqual([
      { old_iban: 'ES…1332', new_iban: 'DE…3000', old_schedule: 'manual', new_schedule: 'manual', held_until: until },
      { old_iban: null, new_iban: 'ES…1332', old_schedule: 'manual', new_schedule: 'manual', held_until: null },
    ]);

    const page = await owner.browser.get(done.location!);
    expect(page.text).toContain('Payout settings changed. Every owner got an email about it.');
    expect(page.text).toMatch(/data-testid="payout-held"[^>]*>New bank account ending 3000: payouts held until an owner confirms it from the email, or until [^<]+\.</);
    const refused = await payOutNow(owner.browser);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Nothing was paid out. New bank account ending 3000: payouts held');
    const api = await shop.post('/merchant_payout/', { currency: 'EUR' });
    expect(api.status).toBe(409);
    expect(api.body.detail).toContain('A new bank account holds the payouts');
    expect((await shop.get('/merchant_payout/')).body.count).toBe(0);

    // Every owner is told: who, when, both accounts masked, one link each.
    const mine = await lastMail(owner.email);
    const theirs = await lastMail(partner.email);
    expect(theirs.count).toBe(before + 1);
    for (const { mail, link } of [mine, theirs]) {
      if (!mail) throw new Error('no email');
      expect(mail.subject).toBe('The payout bank account of Bank account shop was changed');
      expect(mail.text).toContain(owner.email);
      expect(mail.text).toContain('ES…1332');
      expect(mail.text).toContain('DE…3000');
      expect(mail.text).not.toContain(IBANS.DE);
      expect(link).not.toBeNull();
    }
    expect(mine.link).not.toBe(theirs.link);
    const stored = await db().selectFrom('payout_account_links').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash).join()).not.toContain(theirs.link!.split('/').at(-2));

    // Another environment's owner, a made-up token: refused, the hold stays.
    const foreign = await stranger.get(theirs.link!);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toContain('This link confirms nothing');
    await stranger.get('/dashboard/balance/');
    expect((await stranger.post(theirs.link!, {})).status).toBe(404);
    expect((await partner.browser.get('/dashboard/balance/bank-account/confirm/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/')).status).toBe(404);
    expect((await payOutNow(owner.browser)).status).toBe(409);

    // The partner confirms: a page with one button, then the POST; payouts go again.
    const ask = await partner.browser.get(theirs.link!);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('New bank account ending 3000');
    const confirmed = await partner.browser.post(theirs.link!, {});
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/dashboard/balance/?account=confirmed');
    expect(await audit('payout_account_confirmed')).toHaveLength(1);
    expect((await owner.browser.get('/dashboard/balance/')).text).not.toContain('data-testid="payout-held"');
    expect((await payOutNow(owner.browser)).status).toBe(303);
    expect((await shop.get('/merchant_payout/')).body.results).toMatchObject([{ iban_last4: '3000', amount: 10 }]);

    // Used: both links (the partner's and the owner's own) now confirm nothing.
    const used = await partner.browser.post(theirs.link!, {});
    expect(used.status).toBe(404);
    expect(used.text).toContain('it was used already');
    expect((await owner.browser.get(mine.link!)).status).toBe(404);
  });

  it('a hold ends by itself 72 hours later on the service clock: the schedule pays out again', async () => {
    const done = await change(owner.browser, { iban: IBANS.FR, schedule: 'daily', password: 'correct horse battery staple' });
    expect(done.status).toBe(303);
    await owed();
    while ((await t.service.jobs.runOnce(JOB_NAMES.merchantPayouts)) > 0);
    expect((await shop.get('/merchant_payout/')).body.count).toBe(1);
    const { link } = await lastMail(partner.email);
    clock.advance(PAYOUT_HOLD_MS - 60_000);
    while ((await t.service.jobs.runOnce(JOB_NAMES.merchantPayouts)) > 0);
    expect((await shop.get('/merchant_payout/')).body.count).toBe(1);
    clock.advance(60_000);
    await signInAgain();
    expect((await owner.browser.get('/dashboard/balance/')).text).not.toContain('data-testid="payout-held"');
    while ((await t.service.jobs.runOnce(JOB_NAMES.merchantPayouts)) > 0);
    expect((await shop.get('/merchant_payout/')).body.results[0]).toMatchObject({ iban_last4: '2606', schedule: 'daily' });
    // The hold is over: its link confirms nothing.
    expect((await partner.browser.get(link!)).status).toBe(404);
  });

  it('a schedule-only change applies at once, audited and mailed without a link', async () => {
    const done = await change(owner.browser, { schedule: 'manual', password: 'correct horse battery staple' });
    expect(done.status).toBe(303);
    expect((await settings()).schedule).toBe('manual');
    expect((await audit('payout_settings_changed'))[0]).toMatchObject({ old_schedule: 'daily', new_schedule: 'manual', held_until: null });
    const { mail, link } = await lastMail(partner.email);
    expect(mail?.text).toContain('on request');
    expect(link).toBeNull();
    expect((await owner.browser.get('/dashboard/balance/')).text).not.toContain('data-testid="payout-held"');
  });

  it('asks for the second factor when it is on: without the code, refused and nothing stored', async () => {
    const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock.now().getTime() });
    const careful = await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() });
    await careful.browser.post('/dashboard/account/security/totp/', {});
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec((await careful.browser.get('/dashboard/account/security/')).text)![1]!;
    expect((await careful.browser.post('/dashboard/account/security/totp/confirm/', { code: codeOf(secret) })).status).toBe(200);
    clock.advance(30_000);
    const page = await careful.browser.get('/dashboard/balance/');
    expect(page.text).toContain('name="code"');
    const without = await careful.browser.post('/dashboard/balance/bank-account/', { iban: IBANS.GB, password: 'correct horse battery staple' });
    expect(without.status).toBe(400);
    expect(without.text).toContain('The password or the code is not right. Nothing was changed.');
    expect((await settings()).iban).toBe(IBANS.FR);
    const withCode = await careful.browser.post('/dashboard/balance/bank-account/', { iban: IBANS.GB, password: 'correct horse battery staple', code: codeOf(secret) });
    expect(withCode.status).toBe(303);
    expect((await settings()).iban).toBe(IBANS.GB);
  });

  it('the API holds a new account too, and mails the owners', async () => {
    clock.advance(PAYOUT_HOLD_MS);
    await signInAgain();
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES })).status).toBe(200);
    expect((await audit('payout_settings_changed'))[0]).toMatchObject({ old_iban: 'GB…6819', new_iban: 'ES…1332' });
    const { mail, link } = await lastMail(partner.email);
    expect(mail?.text).toContain('The API (a secret key)');
    expect(link).not.toBeNull();
    expect((await owner.browser.get('/dashboard/balance/')).text).toContain('New bank account ending 1332');
    expect((await shop.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409);
  });
});
