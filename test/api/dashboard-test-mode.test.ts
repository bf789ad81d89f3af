import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../server/dashboard/accounts';
import { createEnvironment } from '../../server/store/environments';
import { pairEnvironments, unpairEnvironment } from '../../server/store/environments';
import { blockedBehind } from './lock-waits';

/** The keys CLI's operator, as store callers pass one. */
const OPERATOR = { userId: null, email: null, ip: null, detail: { via: 'npm run keys', operator: 'ops@host' } };
import { type Browser, freshIp, member, PASSWORD } from './dashboard';
import { withAuditFailing } from './failing-audit';
import { Client, ENGINES, startTestService, type TestService, testClock } from './harness';

// The header's "Test mode" switch between a shop's paired sandbox and live environments
// (docs/dashboard.md#test-and-live): offered only to a member of both; a member of one half
// is shown nothing of the other and cannot switch to it.

describe.each(ENGINES)('dashboard test/live switch on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let sandbox: Client;
  let live: Client;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now, env: { TRUST_PROXY: 'true' } });
    sandbox = await t.newEnvironment('Paired shop');
    live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Paired shop', mode: 'live', now: new Date() }));
    expect(await pairEnvironments(t.service.deps.database.db, sandbox.keys.environment_id, live.keys.environment_id, clock.now(), OPERATOR)).toEqual({ pairId: sandbox.keys.environment_id });
  });
  afterAll(() => t?.close());

  const db = () => t.service.deps.database.db;

  /** A member of the sandbox who accepts an invite to the live environment too. */
  async function memberOfBoth(): Promise<Browser> {
    const { browser, email } = await member(t, sandbox, 'owner', { 'x-forwarded-for': freshIp() });
    const { token } = await inviteUser(db(), { email, environmentId: live.keys.environment_id, role: 'viewer', invitedBy: null, now: clock.now() });
    await browser.get(`/dashboard/invite/${token}/`);
    expect((await browser.post(`/dashboard/invite/${token}/`, { password: PASSWORD })).status).toBe(303);
    // Accepting opens the live environment: back to the sandbox with the switcher.
    await browser.get('/dashboard/');
    expect((await browser.post('/dashboard/environment/', { environment: sandbox.keys.environment_id })).status).toBe(303);
    return browser;
  }

  const switchIn = (html: string) => /<form method="post" action="\/dashboard\/environment\/" class="test-mode">.*?<\/form>/s.exec(html)?.[0];

  it('pairs one sandbox with one live environment, never two of one mode, the demo or an environment already paired', async () => {
    const other = await t.newEnvironment('Other');
    const otherLive = await createEnvironment(db(), { name: 'Other live', mode: 'live', now: new Date() });
    expect(await pairEnvironments(db(), other.keys.environment_id, sandbox.keys.environment_id, clock.now(), OPERATOR)).toEqual({ refused: 'same_mode' });
    expect(await pairEnvironments(db(), otherLive.environment_id, sandbox.keys.environment_id, clock.now(), OPERATOR)).toEqual({ refused: 'already_paired' });
    expect(await pairEnvironments(db(), other.keys.environment_id, 'no-such-environment', clock.now(), OPERATOR)).toEqual({ refused: 'not_found' });
    const demo = await createEnvironment(db(), { name: 'Demo', isDemo: true, now: new Date() });
    expect(await pairEnvironments(db(), demo.environment_id, otherLive.environment_id, clock.now(), OPERATOR)).toEqual({ refused: 'demo' });
    expect(await pairEnvironments(db(), other.keys.environment_id, otherLive.environment_id, clock.now(), OPERATOR)).toEqual({ pairId: other.keys.environment_id });
  });

  it('a member of both switches test/live from the header, audited as environment_switched in the environment switched to', async () => {
    const browser = await memberOfBoth();
    const inSandbox = switchIn((await browser.get('/dashboard/')).text);
    expect(inSandbox).toContain(`name="environment" value="${live.keys.environment_id}"`);
    expect(inSandbox).toMatch(/role="switch" aria-checked="true">Test mode</);
    expect((await browser.post('/dashboard/environment/', { environment: live.keys.environment_id })).status).toBe(303);
    const home = await browser.get('/dashboard/');
    expect(home.text).toContain(live.keys.public_key);
    expect(home.text).not.toContain(sandbox.keys.public_key);
    const inLive = switchIn(home.text);
    expect(inLive).toContain(`name="environment" value="${sandbox.keys.environment_id}"`);
    expect(inLive).toMatch(/role="switch" aria-checked="false">Test mode</);
    const switched = await db().selectFrom('audit_log').select('environment_id').where('action', '=', 'environment_switched').where('environment_id', '=', live.keys.environment_id).execute();
    expect(switched.length).toBeGreaterThan(0);
    // Back again, by the live page's switch.
    expect((await browser.post('/dashboard/environment/', { environment: sandbox.keys.environment_id })).status).toBe(303);
    expect((await browser.get('/dashboard/')).text).toContain(sandbox.keys.public_key);
  });

  it('a member of the sandbox alone sees the mode but no switch, nothing of the live environment, and cannot switch to it', async () => {
    const { browser } = await member(t, sandbox, 'owner', { 'x-forwarded-for': freshIp() });
    const home = await browser.get('/dashboard/');
    expect(home.text).toContain('data-mode="sandbox"');
    expect(switchIn(home.text)).toBeUndefined();
    expect(home.text).not.toContain(live.keys.environment_id);
    expect(home.text).not.toContain(live.keys.public_key);
    expect((await browser.post('/dashboard/environment/', { environment: live.keys.environment_id })).status).toBe(403);
    expect((await browser.get('/dashboard/')).text).toContain(sandbox.keys.public_key);
  });

  it('the switch without its CSRF token is refused and switches nothing', async () => {
    const browser = await memberOfBoth();
    expect((await browser.post('/dashboard/environment/', { environment: live.keys.environment_id }, { csrf: null })).status).toBe(403);
    expect((await browser.get('/dashboard/')).text).toContain(sandbox.keys.public_key);
  });

  /** The audit entries of an action in an environment's log. */
  const audited = (environmentId: string, action: string) =>
    db().selectFrom('audit_log').select('detail').where('environment_id', '=', environmentId).where('action', '=', action).execute();

  it('the brand and time zone saved in the live half are saved in its sandbox too and audited in both; saved in the sandbox they stay there; the page says which', async () => {
    const browser = await memberOfBoth();
    const liveBrand = async () => (await live.get('/environment/branding/')).body as Record<string, unknown>;
    const before = await liveBrand();
    const settings = await browser.get('/dashboard/settings/');
    expect(settings.text).toContain('This sandbox takes its brand and time zone from your live environment');
    // A sandbox owner (a viewer in live) and a sandbox API key change the sandbox alone: no live right through the pair.
    expect((await browser.post('/dashboard/settings/', { display_name: 'Sandbox name', support_email: 'dev@shop.example', brand_color: '#000000', accent_color: '#000000' })).status).toBe(303);
    expect((await sandbox.patch('/environment/branding/', { support_email: 'phish@elsewhere.example' })).status).toBe(200);
    expect((await sandbox.get('/environment/branding/')).body).toMatchObject({ display_name: 'Sandbox name', support_email: 'phish@elsewhere.example' });
    expect(await liveBrand()).toEqual(before);
    expect(await audited(live.keys.environment_id, 'settings_changed')).toEqual([]);

    // From the live half, by its admin: the brand and the time zone, in both, audited in both.
    const { browser: liveAdmin } = await member(t, live, 'admin', { 'x-forwarded-for': freshIp() });
    const liveSettings = await liveAdmin.get('/dashboard/settings/');
    expect(liveSettings.text).toContain('Your brand and time zone are set here, in your live environment, and saved in your sandbox too');
    expect((await liveAdmin.post('/dashboard/settings/', { display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#ffdd00' })).status).toBe(303);
    for (const client of [live, sandbox]) {
      expect((await client.get('/environment/branding/')).body).toMatchObject({ display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#ffdd00' });
    }
    for (const id of [sandbox.keys.environment_id, live.keys.environment_id]) {
      expect((await audited(id, 'settings_changed')).map((r) => JSON.parse(r.detail!))).toContainEqual({ fields: 'display_name, support_email, brand_color, accent_color' });
    }
    expect((await liveAdmin.post('/dashboard/settings/time-zone/', { time_zone: 'Europe/Madrid' })).status).toBe(303);
    const zones = await db().selectFrom('environments').select(['id', 'time_zone']).where('id', 'in', [sandbox.keys.environment_id, live.keys.environment_id]).execute();
    expect(zones.map((z) => z.time_zone)).toEqual(['Europe/Madrid', 'Europe/Madrid']);
    expect((await audited(sandbox.keys.environment_id, 'settings_changed')).map((r) => JSON.parse(r.detail!))).toContainEqual({ fields: 'time_zone', time_zone: 'Europe/Madrid' });
    // The sandbox's own time zone change stays there.
    expect((await browser.post('/dashboard/settings/time-zone/', { time_zone: 'Europe/Paris' })).status).toBe(303);
    expect((await db().selectFrom('environments').select('time_zone').where('id', '=', live.keys.environment_id).executeTakeFirstOrThrow()).time_zone).toBe('Europe/Madrid');
  });

  it("a save from the live half whose sandbox's audit entry cannot be written saves nothing in either half, nor the live half's entry", async () => {
    const { browser: liveAdmin } = await member(t, live, 'admin', { 'x-forwarded-for': freshIp() });
    const brands = async () => Promise.all([live, sandbox].map(async (c) => ((await c.get('/environment/branding/')).body as Record<string, unknown>).display_name));
    const zones = async () => (await db().selectFrom('environments').select('time_zone').where('id', 'in', [sandbox.keys.environment_id, live.keys.environment_id]).execute()).map((z) => z.time_zone);
    const liveEntries = async () => (await audited(live.keys.environment_id, 'settings_changed')).length;
    const [brandsBefore, zonesBefore, entriesBefore] = [await brands(), await zones(), await liveEntries()];
    await withAuditFailing(engine, db(), sandbox.keys.environment_id, async () => {
      expect((await liveAdmin.post('/dashboard/settings/', { display_name: 'Not saved', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#ffdd00' })).status).toBe(500);
      expect((await liveAdmin.post('/dashboard/settings/time-zone/', { time_zone: 'Asia/Tokyo' })).status).toBe(500);
    });
    expect(await brands()).toEqual(brandsBefore);
    expect(await zones()).toEqual(zonesBefore);
    expect(await liveEntries()).toBe(entriesBefore);
  });

  it("a logo set through the live half's API is its sandbox's too, never the other way; keys and webhook endpoints stay each one's own", async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    expect((await sandbox.post('/environment/branding/logo/', { content_type: 'image/png', data: png })).status).toBe(201);
    expect((await live.get('/environment/branding/')).body.logo_url).toBeNull();
    const set = await live.post('/environment/branding/logo/', { content_type: 'image/png', data: png });
    expect(set.status, set.text).toBe(201);
    const inSandbox = (await sandbox.get('/environment/branding/')).body as { logo_url: string };
    expect(inSandbox.logo_url).toMatch(new RegExp(`/brand/${sandbox.keys.environment_id}/`));
    expect((await fetch(inSandbox.logo_url)).status).toBe(200);
    const endpoint = await sandbox.post('/webhook_endpoint/', { url: 'https://shop.example/hooks/all', enabled_events: ['transaction.paid'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    expect((await sandbox.get('/webhook_endpoint/')).text).toContain(endpoint.body.id);
    expect((await live.get('/webhook_endpoint/')).text).not.toContain(endpoint.body.id);
    const keyRows = await db().selectFrom('api_keys').select(['environment_id', 'public_key']).where('environment_id', 'in', [sandbox.keys.environment_id, live.keys.environment_id]).execute();
    expect(keyRows.filter((k) => k.environment_id === live.keys.environment_id).map((k) => k.public_key)).toEqual([live.keys.public_key]);
  });

  it('two unpairings at once, one by each half: one ends the pair, the other finds none; one audit line in each log', async () => {
    const shop = await t.newEnvironment('Racing pair');
    const shopLive = await createEnvironment(db(), { name: 'Racing pair', mode: 'live', now: new Date() });
    const halves = [shop.keys.environment_id, shopLive.environment_id];
    expect(await pairEnvironments(db(), halves[0]!, halves[1]!, clock.now(), OPERATOR)).toEqual({ pairId: halves[0] });
    let racing: Promise<unknown[]> | undefined;
    // Both halves' rows held as another change of them would hold them: both unpairings read
    // the pair, then wait to end it.
    await db()
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('environments').set((eb) => ({ pair_id: eb.ref('pair_id') })).where('id', 'in', halves).execute();
        racing = Promise.all(halves.map((id) => unpairEnvironment(db(), id, clock.now(), OPERATOR)));
        await blockedBehind(t.service.deps.database, trx, racing, 2);
      });
    const outcomes = await racing!;
    // Named live first, sandbox second (by mode), whichever half asked.
    expect(outcomes).toContainEqual({ environments: [shopLive.environment_id, shop.keys.environment_id] });
    expect(outcomes).toContainEqual({ refused: 'not_paired' });
    const rows = await db().selectFrom('environments').select('pair_id').where('id', 'in', halves).execute();
    expect(rows.map((r) => r.pair_id)).toEqual([null, null]);
    for (const id of halves) expect(await audited(id, 'environment_unpaired')).toHaveLength(1);
  });

  it('an unpaired environment keeps its own brand', async () => {
    const alone = await t.newEnvironment('Alone');
    expect((await alone.patch('/environment/branding/', { display_name: 'Alone shop' })).status).toBe(200);
    expect((await sandbox.get('/environment/branding/')).body.display_name).toBe('Tostadores Ana');
    expect((await alone.get('/environment/branding/')).body.display_name).toBe('Alone shop');
  });

  it('unpaired (by either half), the switch is gone for a member of both and the live brand stays in live; audited in both, by whom in the log', async () => {
    const browser = await memberOfBoth();
    expect(switchIn((await browser.get('/dashboard/')).text)).toBeDefined();
    expect(await unpairEnvironment(db(), sandbox.keys.environment_id, clock.now(), OPERATOR)).toEqual({ environments: [live.keys.environment_id, sandbox.keys.environment_id] });
    expect(await unpairEnvironment(db(), live.keys.environment_id, clock.now(), OPERATOR)).toEqual({ refused: 'not_paired' });
    expect(await unpairEnvironment(db(), 'no-such-environment', clock.now(), OPERATOR)).toEqual({ refused: 'not_found' });
    expect(switchIn((await browser.get('/dashboard/')).text)).toBeUndefined();
    expect((await browser.post('/dashboard/environment/', { environment: live.keys.environment_id })).status).toBe(303);
    const liveHome = await browser.get('/dashboard/');
    expect(liveHome.text).toContain(live.keys.public_key);
    expect(switchIn(liveHome.text)).toBeUndefined();

    const { browser: liveAdmin } = await member(t, live, 'admin', { 'x-forwarded-for': freshIp() });
    expect((await liveAdmin.post('/dashboard/settings/', { display_name: 'Live alone', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#ffdd00' })).status).toBe(303);
    expect((await liveAdmin.post('/dashboard/settings/time-zone/', { time_zone: 'Asia/Tokyo' })).status).toBe(303);
    expect((await sandbox.get('/environment/branding/')).body.display_name).toBe('Tostadores Ana');
    expect((await db().selectFrom('environments').select('time_zone').where('id', '=', sandbox.keys.environment_id).executeTakeFirstOrThrow()).time_zone).toBe('Europe/Paris');
    expect((await audited(sandbox.keys.environment_id, 'settings_changed')).map((r) => JSON.parse(r.detail!))).not.toContainEqual({ fields: 'display_name' });

    for (const [id, other] of [[sandbox.keys.environment_id, live.keys.environment_id], [live.keys.environment_id, sandbox.keys.environment_id]]) {
      expect((await audited(id!, 'environment_unpaired')).map((r) => JSON.parse(r.detail!))).toEqual([{ ...OPERATOR.detail, with: other }]);
    }
    // The sandbox's log, read by its owner: the unpairing, and a change by an API key named by its label.
    expect((await browser.post('/dashboard/environment/', { environment: sandbox.keys.environment_id })).status).toBe(303);
    expect((await sandbox.patch('/environment/branding/', { display_name: 'Sandbox by key' })).status).toBe(200);
    const log = (await browser.get('/dashboard/audit/')).text;
    // Nobody named with --by: the machine account that ran the keys command.
    expect(log).toMatch(new RegExp(`<td>The keys command, run as ops@host</td>\\s*<td>Unpaired from the environment ${live.keys.environment_id}`));
    expect(log).toMatch(/<td>API key “Default”<\/td>\s*<td>Changed the settings: display_name<\/td>/);
  });
});
