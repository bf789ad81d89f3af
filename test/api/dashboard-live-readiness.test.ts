import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_RECENT_MS } from '../../server/domain/live-readiness';
import { STRIPE_API_VERSION } from '../../server/payments/stripe/client';
import { createEnvironment } from '../../server/store/environments';
import { sendEvent, signedEvent } from '../stripe/events';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { type Browser, member } from './dashboard';
import { Client, ENGINES, startTestService, type TestService, testClock } from './harness';

// Live readiness (issue 45, docs/dashboard.md#live-readiness) over real HTTP on both
// engines: a live environment's checklist (processor and its key's last four, a verified
// webhook within the last 72 hours, brand, support email) and the Overview's warnings, as
// each item is done through the API and as deliveries arrive at the processor's
// `webhook_url` (a bad signature records nothing), then stop (the service's clock moved on).

const KEYS = {
  secret_key: 'sk_live_FAKE0000',
  webhook_secret: 'whsec_FAKE_not_a_real_secret_readiness',
  publishable_key: 'pk_live_FAKE',
};
const HOUR = 3_600_000;

/** The checklist's item `item`: whether it says ready, and its text without tags. */
function item(html: string, name: string): { ready: string; text: string } {
  const m = new RegExp(`<li data-item="${name}" data-ready="(true|false)">([\\s\\S]*?)</li>`).exec(html);
  expect(m, `no item ${name}`).not.toBeNull();
  return { ready: m![1]!, text: m![2]!.replace(/<[^>]+>/g, '') };
}
/** The Overview's readiness warnings, as text. */
const warnings = (html: string) => [...html.matchAll(/<li data-testid="attention-readiness">([\s\S]*?)<\/li>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));

describe.each(ENGINES)('dashboard live readiness on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let double: StripeDouble;
  let live: Client;
  let owner: Browser;

  beforeAll(async () => {
    double = await startStripeDouble({ liveKeys: true });
    t = await startTestService(engine, { now: clock.now, env: { STRIPE_API_URL: double.url, PROCESSOR_URLS_IN_LIVE: 'true' } });
    live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live readiness shop', mode: 'live', now: new Date() }));
    owner = (await member(t, live, 'owner')).browser;
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  const checklist = async (b = owner) => {
    const page = await b.get('/dashboard/live-readiness/');
    expect(page.status).toBe(200);
    return page.text;
  };
  /** The Overview's readiness warnings (the page itself, not a sign-in page). */
  const overviewWarnings = async (b = owner) => {
    const home = await b.get('/dashboard/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('data-testid="attention"');
    return warnings(home.text);
  };
  const deliver = (url: string, secret = KEYS.webhook_secret) =>
    sendEvent(url, signedEvent({ type: 'customer.created', object: { id: 'cus_FAKEreadiness', object: 'customer' }, secret, apiVersion: STRIPE_API_VERSION }));

  it('lists what is missing, item by item as it is done, and warns on the Overview until all is ready', async () => {
    expect((await owner.get('/dashboard/')).text).toContain('href="/dashboard/live-readiness/"');
    expect(await overviewWarnings()).toEqual(['Not ready for live payments: A processor connected, A webhook received from the processor recently, Your brand, A support email missing (see the live readiness checklist)']);
    let html = await checklist();
    expect(html).toContain('4 of 4 items missing.');
    for (const name of ['processor', 'webhook', 'branding', 'support_email']) expect(item(html, name).ready).toBe('false');
    expect(html).toContain('href="/dashboard/processors/"');

    const connected = await live.post('/processor/', { type: 'stripe', ...KEYS });
    expect(connected.status, connected.text).toBe(201);
    html = await checklist();
    expect(item(html, 'processor')).toEqual({ ready: 'true', text: expect.stringContaining('Done: connected with the secret key ending in …0000') });
    expect(item(html, 'webhook')).toEqual({ ready: 'false', text: expect.stringContaining('no webhook from your processor has been received yet') });
    // Nothing of the keys but the last four, anywhere.
    for (const secret of Object.values(KEYS)) expect(html).not.toContain(secret);

    // A delivery that does not verify counts for nothing; a verified one does.
    const url = connected.body.webhook_url as string;
    expect(await deliver(url, 'whsec_FAKE_another_endpoint_secret')).toBe(400);
    expect(item(await checklist(), 'webhook').ready).toBe('false');
    expect(await deliver(url)).toBe(204);
    html = await checklist();
    expect(item(html, 'webhook')).toEqual({ ready: 'true', text: expect.stringContaining('the last verified webhook came') });

    const branded = await live.patch('/environment/branding/', { display_name: 'Readiness Shop', brand_color: '#1a4d8f', support_email: 'help@readiness.shop.example' });
    expect(branded.status, branded.text).toBe(200);
    html = await checklist();
    expect(html).toContain('Everything is ready.');
    expect(await overviewWarnings()).toEqual([]);
    // A viewer reads the same checklist.
    expect(await checklist((await member(t, live, 'viewer')).browser)).toContain('Everything is ready.');
  });

  it('warns once the processor\'s webhooks stop arriving for 72 hours, and stops warning at the next delivery', async () => {
    // The environment of the test before: everything ready, a delivery just now.
    expect(await checklist()).toContain('Everything is ready.');
    // Days later a session has expired: each look is a fresh sign-in.
    const signedIn = async () => (await member(t, live, 'owner')).browser;
    clock.advance(WEBHOOK_RECENT_MS - HOUR);
    expect(await overviewWarnings(await signedIn())).toEqual([]);
    clock.advance(2 * HOUR);
    const later = await signedIn();
    expect(await overviewWarnings(later)).toEqual([expect.stringMatching(/^Webhooks from your processor stopped arriving: the last one came /)]);
    const html = await checklist(later);
    expect(html).toContain('1 of 4 items missing.');
    expect(item(html, 'webhook')).toEqual({ ready: 'false', text: expect.stringContaining('none in the last 72 hours') });

    const [processor] = (await live.get('/processor/')).body.results as { webhook_url: string }[];
    expect(await deliver(processor!.webhook_url)).toBe(204);
    expect(await checklist(later)).toContain('Everything is ready.');
    expect(await overviewWarnings(later)).toEqual([]);
    clock.reset();
  });

  it('a sandbox shows the checklist, none of the live environment\'s items, and no warning', async () => {
    const sandbox = await t.newEnvironment('Readiness sandbox');
    const browser = (await member(t, sandbox, 'owner')).browser;
    const html = await checklist(browser);
    expect(html).toContain('This is a sandbox');
    expect(html).toContain('4 of 4 items missing.');
    expect(await overviewWarnings(browser)).toEqual([]);
    // Signed out: the sign-in page, nothing of any environment.
    const anonymous = await fetch(`${t.url}/dashboard/live-readiness/`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
  });
});
