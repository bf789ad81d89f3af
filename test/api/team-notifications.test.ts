import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { JOB_NAMES } from '../../server/jobs';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { mailsOf } from '../../server/store/mails';
import { inviteUser } from '../../server/dashboard/accounts';
import { type Browser, inbox, member, PASSWORD } from './dashboard';
import { ENGINES, type Client, type TestService, testClock } from './harness';
import { cancelToken, paidTransaction, payToken, priced } from './pay';
import { type Receiver, startReceiver } from './receiver';
import { startWebhookService } from './webhook-service';

// The emails to a merchant's team over real HTTP (docs/dashboard.md "Notifications"): a new
// dispute, a failed payout and a webhook endpoint failing for a day, each once to each
// member who wants it (owners and admins until they choose; a viewer who opts in), in the
// language the member chose in, with times in the shop's zone and a link to the page;
// none to a member who turned it off, none to another environment's members. The
// members' form refuses what it does not understand and is audited.

const H = 3600_000;
const NO_FEE = { percentE2: 0n, fixed: 0n };
/** A test IBAN the sandbox payout gateway refuses (test/api/merchant-payouts.test.ts). */
const REFUSED_IBAN = 'DE94370400440532010000';
const ALL_ON = { dispute_opened: 'on', payout_failed: 'on', endpoint_failing: 'on' };

type Member = { browser: Browser; email: string };

describe.each(ENGINES)('team notifications on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let close: () => Promise<void>;
  let shop: Client;
  let other: Client;
  let owner: Member;
  let admin: Member;
  let viewer: Member;
  let stranger: Member;
  const db = () => t.service.deps.database.db;
  /** The emails of `kind` to `who`, newest last. */
  const mailsTo = async (who: Member, subject: RegExp) => (await inbox(t, who.email)).filter((m) => subject.test(m.subject ?? ''));
  const links = (mail: ParsedMail) => [...String(mail.text).matchAll(/https?:\/\/\S+?(\/dashboard\/\S+\/(?:\?environment=[0-9a-f-]+)?)(?=\s|$)/g)].map((m) => m[1]);
  /** A team email's link to a page of `env`: it names its environment. */
  const linkTo = (env: Client, path: string) => `/dashboard/${path}?environment=${env.keys.environment_id}`;

  beforeAll(async () => {
    ({ t, close } = await startWebhookService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: '0' } }));
    shop = await t.newEnvironment('Lamp shop');
    other = await t.newEnvironment('Other shop');
    owner = await member(t, shop, 'owner');
    admin = await member(t, shop, 'admin', { 'accept-language': 'es' });
    viewer = await member(t, shop, 'viewer');
    stranger = await member(t, other, 'owner');
  });
  afterAll(() => close?.());

  /** A payment disputed by the sandbox bank at once; the dispute as the API shows it. */
  async function disputed(api: Client, price: number) {
    const created = await api.post('/transaction/', priced('EUR', price));
    expect(await payToken(api.url, created.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
    await t.service.jobs.runOnce(JOB_NAMES.sandboxDisputes);
    const list = (await api.get('/dispute/?status=needs_response')).body.results as { id: string; amount: number; evidence_due_by: string }[];
    return list[0]!;
  }

  it('shows each member their own choices (owners and admins on, viewers off) and refuses a form it does not understand', async () => {
    const mine = await owner.browser.get('/dashboard/account/notifications/');
    expect(mine.status).toBe(200);
    expect(mine.text).toContain('Email notifications');
    expect(mine.text).toMatch(/name="dispute_opened" value="on" checked/);
    const theirs = await viewer.browser.get('/dashboard/account/notifications/');
    expect(theirs.text).not.toMatch(/name="dispute_opened" value="on" checked/);

    const bad = await owner.browser.post('/dashboard/account/notifications/', { dispute_opened: 'yes', payout_failed: 'on' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('The form was not understood (dispute_opened): nothing was changed.');
    expect((await auditOf(db(), shop.keys.environment_id, { limit: 100, offset: 0, action: 'notifications_changed' })).length).toBe(0);
    // Without the session's token: refused, nothing saved.
    expect((await owner.browser.post('/dashboard/account/notifications/', {}, { csrf: null })).status).toBe(403);
    expect((await owner.browser.get('/dashboard/account/notifications/')).text).toMatch(/name="dispute_opened" value="on" checked/);
  });

  it('mails a new dispute once to each owner and admin, in their language, the date in the shop’s zone, with its link', async () => {
    // The admin saves from a Spanish dashboard: their emails are in Spanish.
    await admin.browser.get('/dashboard/account/notifications/');
    expect((await admin.browser.post('/dashboard/account/notifications/', ALL_ON)).status).toBe(303);
    await owner.browser.get('/dashboard/settings/');
    expect((await owner.browser.post('/dashboard/settings/time-zone/', { time_zone: 'Pacific/Auckland' })).status).toBe(303);
    const strangerDispute = await disputed(other, 12);
    const d = await disputed(shop, 30);

    const [toOwner, ...more] = await mailsTo(owner, /dispute/i);
    expect(more).toHaveLength(0);
    expect(toOwner!.subject).toBe('New dispute on Lamp shop: €30.00');
    expect(toOwner!.from?.value[0]?.name).toBe('Payments dashboard');
    const due = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone: 'Pacific/Auckland' }).format(new Date(d.evidence_due_by));
    expect(toOwner!.text).toContain(due);
    expect(due).toMatch(/GMT\+1[23]|NZ/);
    expect(toOwner!.text).toContain('Fraudulent (the cardholder says they did not pay)');
    expect(links(toOwner!)).toContain(linkTo(shop, `disputes/${d.id}/`));
    expect((await owner.browser.get(linkTo(shop, `disputes/${d.id}/`))).text).toContain('Fraudulent');

    const toAdmin = await mailsTo(admin, /disputa/i);
    expect(toAdmin).toHaveLength(1);
    expect(toAdmin[0]!.subject).toMatch(/^Nueva disputa en Lamp shop: 30,00\s€$/);
    expect(toAdmin[0]!.text).toContain('Fraudulenta (el titular dice que no pagó)');
    // Viewers did not choose it; another environment's dispute reaches only its own team.
    expect(await mailsTo(viewer, /dispute|disputa/i)).toHaveLength(0);
    expect((await mailsTo(stranger, /dispute/i)).map((m) => m.subject)).toEqual(['New dispute on Other shop: €12.00']);
    expect(links((await mailsTo(stranger, /dispute/i))[0]!)).toEqual([linkTo(other, `disputes/${strangerDispute.id}/`), '/dashboard/account/notifications/']);
    // Queued with the dispute: one row per recipient, nothing more on later rounds.
    while ((await t.service.jobs.runOnce(JOB_NAMES.sandboxDisputes)) > 0);
    expect((await mailsOf(db(), d.id)).map((m) => m.kind)).toEqual(['dispute_opened', 'dispute_opened']);
  });

  it('a link into another of the member’s environments offers the switch (a GET changes nothing), which then opens the page; one into an environment not theirs is a 404', async () => {
    const both = await member(t, shop, 'viewer');
    const { token } = await inviteUser(db(), { email: both.email, environmentId: other.keys.environment_id, role: 'viewer', invitedBy: null, now: t.service.deps.now() });
    await both.browser.get(`/dashboard/invite/${token}/`);
    expect((await both.browser.post(`/dashboard/invite/${token}/`, { password: PASSWORD })).status).toBe(303);
    expect((await both.browser.get('/dashboard/')).text).toContain(other.keys.public_key);

    const link = linkTo(shop, 'webhook-endpoints/');
    const offered = await both.browser.get(link);
    expect(offered.status).toBe(200);
    expect(offered.text).toContain('This page belongs to Lamp shop (sandbox). You are looking at Other shop (sandbox).');
    expect(offered.text).toContain('value="/dashboard/webhook-endpoints/"');
    expect((await both.browser.get('/dashboard/')).text).toContain(other.keys.public_key);
    // Only a page of ours: another host, or a path that is not the dashboard's, is refused and switches nothing.
    for (const next of ['//evil.example/dashboard/', 'https://evil.example/', '/pay/x/']) {
      expect((await both.browser.post('/dashboard/environment/', { environment: shop.keys.environment_id, next })).status, next).toBe(403);
    }
    expect((await both.browser.get('/dashboard/')).text).toContain(other.keys.public_key);
    const switched = await both.browser.post('/dashboard/environment/', { environment: shop.keys.environment_id, next: '/dashboard/webhook-endpoints/' });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/dashboard/webhook-endpoints/');
    expect((await both.browser.get('/dashboard/')).text).toContain(shop.keys.public_key);
    // Now in it: the link opens the page itself.
    expect((await both.browser.get(link)).text).not.toContain('This page belongs to');
    // Not theirs: as any page that does not exist, and their session stays where it was.
    expect((await stranger.browser.get(link)).status).toBe(404);
  });

  it('sends nothing to a member who turned it off, and what a viewer turned on; audited', async () => {
    await owner.browser.get('/dashboard/account/notifications/');
    const saved = await owner.browser.post('/dashboard/account/notifications/', { payout_failed: 'on', endpoint_failing: 'on' });
    expect(saved.status).toBe(303);
    expect((await owner.browser.get(saved.location!)).text).toContain('Saved.');
    await viewer.browser.get('/dashboard/account/notifications/');
    expect((await viewer.browser.post('/dashboard/account/notifications/', ALL_ON)).status).toBe(303);
    const audited = await auditOf(db(), shop.keys.environment_id, { limit: 100, offset: 0, action: 'notifications_changed' });
    expect(audited.map((a) => [a.email, JSON.parse(a.detail!)])).toEqual(
      expect.arrayContaining([
        [owner.email, { dispute_opened: 'off', payout_failed: 'on', endpoint_failing: 'on' }],
        [viewer.email, { dispute_opened: 'on', payout_failed: 'on', endpoint_failing: 'on' }],
      ]),
    );
    // Another environment's choices are apart: the stranger's stay as they were.
    expect((await stranger.browser.get('/dashboard/account/notifications/')).text).toMatch(/name="dispute_opened" value="on" checked/);

    const before = (await mailsTo(owner, /dispute/i)).length;
    const d = await disputed(shop, 45);
    expect(await mailsTo(owner, /dispute/i)).toHaveLength(before);
    expect((await mailsTo(viewer, /dispute/i)).map((m) => m.subject)).toEqual(['New dispute on Lamp shop: €45.00']);
    expect((await mailsOf(db(), d.id)).map((m) => m.kind)).toEqual(['dispute_opened', 'dispute_opened']);
  });

  it('mails a failed payout with its amount, bank account’s last four, the reason and a link', async () => {
    await setPricing(db(), other.keys.environment_id, { charge: NO_FEE, refund: NO_FEE, settlementDelayDays: 0 }, clock.now());
    await paidTransaction(other, priced('EUR', 40));
    while ((await t.service.jobs.runOnce(JOB_NAMES.balance)) > 0);
    expect((await other.patch('/payout_settings/', { iban: REFUSED_IBAN })).status).toBe(200);
    const made = (await other.post('/merchant_payout/', { currency: 'EUR' })).body;
    await t.service.jobs.runOnce(JOB_NAMES.merchantPayouts);
    const failed = (await other.get(`/merchant_payout/${made.id}/`)).body;
    expect(failed.status).toBe('failed');

    const mails = await mailsTo(stranger, /payout of/);
    // What the earlier dispute left of the 40 paid: the payout's amount.
    const amount = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(failed.amount);
    expect(failed.amount).toBeGreaterThan(0);
    expect(mails.map((m) => m.subject)).toEqual([`A payout of Other shop failed: ${amount}`]);
    expect(mails[0]!.text).toContain('ending in 0000');
    expect(mails[0]!.text).toContain(failed.failure);
    expect(links(mails[0]!)).toContain(linkTo(other, `payouts/${made.id}/`));
    expect(mails[0]!.html).toContain(`/dashboard/payouts/${made.id}/`);
    // Lamp shop's team hears nothing of another environment's payout.
    for (const m of [owner, admin, viewer]) expect(await mailsTo(m, /payout|liquidación/i)).toHaveLength(0);
    expect((await mailsOf(db(), made.id)).map((m) => m.kind)).toEqual(['payout_failed']);
  });

  describe('a webhook endpoint failing for a day', () => {
    let hook: Receiver;
    let hooks: Client;
    let team: Member;
    const failingMails = () => mailsTo(team, /failed for a day/);
    const failingRound = () => t.service.jobs.runOnce(JOB_NAMES.endpointFailing);
    const deliver = async () => {
      while ((await t.service.jobs.runOnce(JOB_NAMES.delivery)) > 0);
    };
    const cancelled = async () => {
      const tx = await hooks.post('/transaction/', priced('EUR', 3));
      await cancelToken(hooks.url, tx.body.token);
    };

    beforeAll(async () => {
      hook = await startReceiver();
      hooks = await t.newEnvironment('Hook <shop>');
      team = await member(t, hooks, 'owner');
    });
    afterAll(() => hook?.close());

    it('mails once per failing spell: not before 24 h, not again on later rounds, again after a success ends the spell', async () => {
      const endpoint = (await hooks.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['transaction.cancelled'] })).body;
      hook.script(...Array<number>(20).fill(500));
      await cancelled();
      await deliver();
      expect(hook.received).toHaveLength(1);

      clock.advance(23 * H);
      expect(await failingRound()).toBe(0);
      clock.advance(1 * H + 1000);
      expect(await failingRound()).toBe(1);
      expect(await failingRound()).toBe(0);
      clock.advance(1 * H);
      expect(await failingRound()).toBe(0);
      const [mail, ...more] = await failingMails();
      expect(more).toHaveLength(0);
      expect(mail!.subject).toBe('A webhook endpoint of Hook <shop> has failed for a day');
      expect(mail!.text).toContain(`Every delivery to ${hook.url} has failed since`);
      expect(mail!.html).toContain('Hook &lt;shop>');
      expect(mail!.html).not.toContain('Hook <shop>');
      expect(links(mail!)).toContain(linkTo(hooks, `webhook-endpoints/${endpoint.id}/`));
      // Only this environment's team.
      for (const m of [owner, admin, viewer, stranger]) expect(await mailsTo(m, /failed for a day/)).toHaveLength(0);

      // A success ends the spell: nothing to mail however long afterwards.
      hook.script();
      clock.advance(48 * H);
      await deliver();
      expect(hook.received.length).toBeGreaterThan(1);
      expect((await hooks.get(`/webhook_endpoint/${endpoint.id}/`)).body.enabled).toBe(true);
      expect(await failingRound()).toBe(0);

      // A new spell, a day long: one more email.
      hook.script(...Array<number>(20).fill(503));
      await cancelled();
      await deliver();
      clock.advance(25 * H);
      expect(await failingRound()).toBe(1);
      expect(await failingRound()).toBe(0);
      expect(await failingMails()).toHaveLength(2);
    });
  });
});
