import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { auditOf } from '../../server/store/audit';
import { createEnvironment } from '../../server/store/environments';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { type Browser, member } from './dashboard';
import { Client, ENGINES, startTestService, type TestService } from './harness';

// A Redsys terminal on the dashboard's Processors page (issue 46; docs/dashboard.md#processors),
// over real HTTP on both engines against the Redsys test double (REDSYS_URL): an owner
// connects the test terminal with the form (the API's schema: a bad merchant code and a
// short key refused by field, what is not a key shown again, the key never), sees its
// card and Bizum gateways and the notification URL to register at the bank, is refused a
// second terminal, rotates the key (a key Redsys refuses first), disconnects after being
// asked once more; each change audited with the key's last four characters only. Other
// roles, a missing CSRF token and a live environment with a test double are refused in
// Redsys's words. What the forms did is read back through the API.

const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const SHORT_KEY = 'c2hvcnQ=';
const REFUSED_KEY = Buffer.alloc(24, 9).toString('base64');
const connectForm = (over: Record<string, string> = {}) => ({ type: 'redsys', merchant_code: PUBLIC_TEST_MERCHANT, terminal: '1', secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1', ...over });

describe.each(ENGINES)('a Redsys terminal on the Processors page on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  let api: Client;
  let owner: Browser;
  const BASE = '/dashboard/processors/';

  beforeAll(async () => {
    double = await startRedsysDouble();
    t = await startTestService(engine, { env: { REDSYS_URL: double.url } });
    api = await t.newEnvironment('Redsys dashboard shop');
    owner = (await member(t, api, 'owner')).browser;
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  const audit = async (action: string) => (await auditOf(t.service.deps.database.db, api.keys.environment_id, { limit: 100, offset: 0 })).filter((a) => a.action === action).map((a) => JSON.parse(a.detail ?? 'null') as unknown);

  it('connects the terminal by form, shows its gateways and notification URL, rotates its key and disconnects it', async () => {
    const list = await owner.get(BASE);
    expect(list.status).toBe(200);
    expect(textOf(list.text)).toContain('Connect a Redsys terminal');
    expect(list.text).toContain('name="merchant_code"');

    // The API's own rules, by field; what is not a key comes back, the key never; Redsys not asked.
    const asked = double.requests.length;
    const bad = await owner.post(BASE, connectForm({ merchant_code: '12345678901', secret_key: SHORT_KEY }));
    expect(bad.status).toBe(400);
    expect(textOf(bad.text)).toMatch(/Merchant code: .*Terminal key \(base64\): /);
    expect(bad.text).toContain('value="12345678901"');
    expect(bad.text).not.toContain(SHORT_KEY);
    expect(double.requests.length).toBe(asked);
    expect((await owner.post(BASE, connectForm({ signature_version: 'HMAC_SHA1' }))).status).toBe(400);
    // A key Redsys refuses: checked there, refused by field, nothing stored.
    const refused = await owner.post(BASE, connectForm({ secret_key: REFUSED_KEY }));
    expect(refused.status).toBe(400);
    expect(textOf(refused.text)).toContain('Terminal key (base64): ');
    expect((await api.get('/processor/')).body.count).toBe(0);

    const connected = await owner.post(BASE, connectForm());
    expect(connected.status, connected.text).toBe(303);
    const [processor] = (await api.get('/processor/')).body.results as { id: string; type: string; secret_key_last4: string; webhook_url: string }[];
    expect(processor).toMatchObject({ type: 'redsys', secret_key_last4: PUBLIC_TEST_KEY.slice(-4) });
    expect(connected.location).toBe(`${BASE}${processor!.id}/?done=connected`);
    const page = await owner.get(connected.location!);
    const shown = textOf(page.text);
    expect(shown).toContain('Connected. Register the notification URL at your bank now.');
    expect(shown).toContain(`Notification URL ${processor!.webhook_url}`);
    expect(shown).toContain(`Card (${REDSYS_CARD_ID}), Bizum (${REDSYS_BIZUM_ID})`);
    expect(page.text).not.toContain(PUBLIC_TEST_KEY);

    // Connected: the list no longer offers a second, and a second post is refused in Redsys's words.
    expect(textOf((await owner.get(BASE)).text)).not.toContain('Connect a Redsys terminal');
    const second = await owner.post(BASE, connectForm());
    expect(second.status).toBe(409);
    expect(textOf(second.text)).toContain('a Redsys terminal is already connected');

    // Rotation: nothing typed is refused; a key Redsys refuses is refused by field; the right one saved.
    const url = `${BASE}${processor!.id}/`;
    expect((await owner.post(url, { secret_key: '', signature_version: '' })).status).toBe(400);
    const wrong = await owner.post(url, { secret_key: REFUSED_KEY, signature_version: '' });
    expect(wrong.status).toBe(400);
    expect(textOf(wrong.text)).toContain('Terminal key (base64): ');
    expect(wrong.text).not.toContain(REFUSED_KEY);
    const saved = await owner.post(url, { secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.location).toBe(`${url}?done=saved`);

    const confirm = await owner.post(`${url}delete/`, {});
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text)).toContain('Disconnect this Redsys terminal?');
    expect((await api.get(`/processor/${processor!.id}/`)).status).toBe(200);
    const gone = await owner.post(`${url}delete/`, { confirm: 'yes' });
    expect(gone.status).toBe(303);
    expect((await api.get(`/processor/${processor!.id}/`)).status).toBe(404);

    const logged = { id: processor!.id, type: 'redsys', secret_key_last4: PUBLIC_TEST_KEY.slice(-4) };
    for (const action of ['processor_connected', 'processor_changed', 'processor_disconnected']) expect(await audit(action)).toEqual([logged]);
  });

  it('refuses other roles and a missing CSRF token, connecting nothing', async () => {
    for (const role of ['admin', 'viewer'] as const) {
      const { browser } = await member(t, api, role);
      expect((await browser.get(BASE)).status).toBe(403);
      expect((await browser.post(BASE, connectForm())).status).toBe(403);
      expect((await api.get('/processor/')).body.count, role).toBe(0);
    }
    expect((await owner.post(BASE, connectForm(), { csrf: null })).status).toBe(403);
    expect((await api.get('/processor/')).body.count).toBe(0);
  });

  it('refuses a live environment while REDSYS_URL points at a test double, in Redsys’s words', async () => {
    const live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live Redsys shop', mode: 'live', now: new Date() }));
    const { browser } = await member(t, live, 'owner');
    const res = await browser.post(BASE, connectForm({ merchant_code: '123456789', secret_key: Buffer.alloc(24, 7).toString('base64') }));
    expect(res.status).toBe(409);
    expect(textOf(res.text)).toContain('sends Redsys requests to a test double (REDSYS_URL)');
    expect((await live.get('/processor/')).body.count).toBe(0);
  });
});
