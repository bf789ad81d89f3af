import { describe, expect, it } from 'vitest';
import { setPricing } from '../../server/store/balance';
import { auditOf } from '../../server/store/audit';
import { getBrand } from '../../server/store/branding';
import { member } from './dashboard';
import { ENGINES, testClock } from './harness';
import { useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';
import { JOB_NAMES } from '../../server/jobs';

/** A 1×1 PNG, a JPEG's markers, an SVG (an image that can run script: refused). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(64), Buffer.from('ffd9', 'hex')]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const fileForm = (bytes: Buffer, name: string, type: string) => {
  const form = new FormData();
  form.append('logo', new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
};
/** The settings form as the page sends it (multipart): `fields`, then the file of `file` if any. */
const brandForm = (fields: Record<string, string>, file?: FormData) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [k, v] of file ?? []) form.append(k, v);
  return form;
};

// The dashboard's settings: owners and admins change the brand customers see (through the
// same rules and store as PATCH /v1/environment/branding/), the payment page shows it;
// viewers read it; pricing, mode and raw card numbers are read-only; roles and CSRF are
// checked on the server, every change is in the audit log.

describe.each(ENGINES)('dashboard settings on %s', (engine) => {
  // Its own database: a test runs the balance job, which takes every due row it finds.
  const clock = testClock();
  const svc = useOwnService(engine, { now: clock.now }, 'Settings shop');
  const db = () => svc.t.service.deps.database.db;
  const env = () => svc.api.keys.environment_id;

  it('an owner changes name, support email and colours; the payment page shows them; the audit log says so', async () => {
    const { browser } = await member(svc.t, svc.api, 'owner');
    const page = await browser.get('/dashboard/settings/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/dashboard/settings/" aria-current="page"');
    // The payment page's preview, framed from our origin at a phone's and a desktop's width.
    expect(page.headers.get('content-security-policy')).toContain("frame-src 'self'");
    expect(page.text).toContain('<iframe src="/dashboard/settings/preview/?" title="Payment page preview on a phone (360 px)" width="360" height="740"');
    expect(page.text).toContain('title="Payment page preview on a desktop (1280 px)" width="1280" height="800"');
    expect(page.text).toContain('<input id="brand_color_picker" name="brand_color_picker" type="color" value="#1d4ed8"');
    expect(page.text).toContain('href="/dashboard/team/"');
    expect(page.text).toContain('href="/dashboard/audit/"');

    const saved = await browser.post('/dashboard/settings/', { display_name: ' Tostadores Ana ', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#FFDD00' });
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    expect(saved.location).toBe('/dashboard/settings/?saved=1');
    expect(await getBrand(db(), env())).toMatchObject({ display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#1d4ed8', accent_color: '#ffdd00' });
    const after = await browser.get(saved.location!);
    expect(after.text).toContain('Settings saved.');
    expect(after.text).toContain('value="Tostadores Ana"');
    // The preview shows the saved brand; beside each colour, its contrast in words.
    expect(after.text).toContain('<iframe src="/dashboard/settings/preview/?display_name=Tostadores+Ana&amp;brand_color=%231d4ed8&amp;accent_color=%23ffdd00"');
    expect(after.text).toContain('The pay button writes light text on #1d4ed8: contrast 6.7:1 (4.5:1 needed). Your colour is kept.');
    expect(after.text).toContain('The band at the top of the payment card: #ffdd00, contrast 1.34:1 with the white card, under 3:1: hard to see.');

    // The payment page: the name, and the colours in its brand stylesheet.
    const created = await svc.api.post('/transaction/', priced('EUR', 3));
    const pay = await (await fetch(`${svc.t.url}/pay/${created.body.token}/`)).text();
    expect(pay).toContain('Tostadores Ana');
    const sheet = /<link rel="stylesheet" href="(\/brand\/[^"]+\.css)">/.exec(pay)![1]!;
    const css = await (await fetch(`${svc.t.url}${sheet}`)).text();
    expect(css).toContain('#1d4ed8');
    expect(css).toContain('#ffdd00');

    // The API's rule: a colour neither white nor dark text reads on is darkened, and the page says so.
    const grey = await browser.post('/dashboard/settings/', { display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#7F7F7F', accent_color: '#ffdd00' });
    expect(grey.status).toBe(200);
    const applied = (await getBrand(db(), env()))!.brand_color!;
    expect(applied).not.toBe('#7f7f7f');
    expect(grey.text).toContain(`the brand colour was darkened to ${applied}`);
    expect((await svc.api.get('/environment/branding/')).body).toMatchObject({ display_name: 'Tostadores Ana', brand_color: applied });
    // A yellow is kept, and the page says the button's text is dark on it, as the page does.
    const yellow = await browser.post('/dashboard/settings/', { display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#FFDD00', accent_color: '#ffdd00' });
    expect(yellow.status).toBe(303);
    const words = (await browser.get('/dashboard/settings/')).text;
    expect(words).toContain('The pay button writes dark text on #ffdd00: contrast 12.94:1 (4.5:1 needed). Your colour is kept.');
    expect(words).not.toContain('data-testid="error-');

    // Emptied fields go back to the page's own.
    expect((await browser.post('/dashboard/settings/', { display_name: '', support_email: '', brand_color: '', accent_color: '' })).status).toBe(303);
    expect(await getBrand(db(), env())).toMatchObject({ display_name: null, support_email: null, brand_color: null, accent_color: null });

    const log = (await auditOf(db(), env(), { limit: 50, offset: 0 })).filter((r) => r.action === 'settings_changed');
    expect(log).toHaveLength(4);
    expect(JSON.parse(log.at(-1)!.detail!)).toEqual({ fields: 'display_name, support_email, brand_color, accent_color' });
    expect((await browser.get('/dashboard/audit/')).text).toContain('Changed the settings: display_name, support_email, brand_color, accent_color');
  });

  it('an invalid colour or email is a 400 with the form showing the errors and what was typed; nothing saved', async () => {
    const { browser } = await member(svc.t, svc.api, 'admin');
    const before = await getBrand(db(), env());
    const res = await browser.post('/dashboard/settings/', { display_name: 'New name', support_email: 'not an email', brand_color: 'red', accent_color: '#12345' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Nothing was saved');
    for (const field of ['support_email', 'brand_color', 'accent_color']) {
      expect(res.text).toContain(`data-testid="error-${field}"`);
      expect(res.text).toMatch(new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
    }
    expect(res.text).not.toContain('data-testid="error-display_name"');
    expect(res.text).toContain('value="red"');
    expect(res.text).toContain('value="New name"');
    expect(await getBrand(db(), env())).toEqual(before);
  });

  it('a viewer reads the settings and gets 403 for a change; a post without its CSRF token is a 403; nothing changes', async () => {
    const viewer = (await member(svc.t, svc.api, 'viewer')).browser;
    const page = await viewer.get('/dashboard/settings/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Only owners and admins can change these.');
    expect(page.text).not.toContain('href="/dashboard/team/"');
    const before = await getBrand(db(), env());
    const refused = await viewer.post('/dashboard/settings/', { display_name: 'Hijacked' });
    expect(refused.status).toBe(403);
    const owner = (await member(svc.t, svc.api, 'owner')).browser;
    expect((await owner.post('/dashboard/settings/', { display_name: 'No token' }, { csrf: null })).status).toBe(403);
    expect((await owner.post('/dashboard/settings/', { display_name: 'Wrong token' }, { csrf: 'x'.repeat(43) })).status).toBe(403);
    expect(await getBrand(db(), env())).toEqual(before);
  });

  it('shows pricing, mode and the raw card setting read-only', async () => {
    await setPricing(db(), env(), { charge: { percentE2: 290n, fixed: 30n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 3, disputeFixed: 1500n }, new Date());
    const page = (await (await member(svc.t, svc.api, 'viewer')).browser.get('/dashboard/settings/')).text;
    // A shop holding no money yet: the fixed part as what it is, minor units of each sale's currency.
    expect(page).toContain('<dd data-testid="charge-fee">2.90% + 30 minor units of the sale’s currency</dd>');
    expect(page).toContain('npm run keys -- pricing');
    expect(page).toContain('<dd data-testid="mode">sandbox</dd>');
    expect(page).toContain('<dd data-testid="raw-cards">on</dd>');
    // Nothing of it is a field.
    expect(page).not.toMatch(/name="(charge|mode|raw)/);
  });

  it('writes a fixed fee as money in each currency the shop holds: the same minor units, whatever their size', async () => {
    await setPricing(db(), env(), { charge: { percentE2: 290n, fixed: 30n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 3, disputeFixed: 1500n }, new Date());
    await paidTransaction(svc.api, priced('EUR', 20));
    await paidTransaction(svc.api, priced('JPY', 1000));
    await svc.t.service.jobs.runOnce(JOB_NAMES.balance);
    const page = (await (await member(svc.t, svc.api, 'viewer')).browser.get('/dashboard/settings/')).text;
    expect(page).toContain('<dd data-testid="charge-fee">2.90% + €0.30 · ¥30</dd>');
    expect(page).toContain('<dd>€15.00 · ¥1,500</dd>');
    expect(page).toContain('A fixed part is charged in each sale’s own currency');
    const es = (await (await member(svc.t, svc.api, 'viewer', { 'accept-language': 'es' })).browser.get('/dashboard/settings/')).text;
    expect(es).toContain('<dd data-testid="charge-fee">2,90\u00a0% + 0,30\u00a0€ · 30\u00a0JPY</dd>');
  });

  it('the audit log filters by action, member and a range of UTC days', async () => {
    const owner = await member(svc.t, svc.api, 'owner');
    const admin = await member(svc.t, svc.api, 'admin');
    expect((await admin.browser.post('/dashboard/settings/', { display_name: 'By the admin' })).status).toBe(303);
    expect((await owner.browser.post('/dashboard/settings/', { display_name: 'By the owner' })).status).toBe(303);
    const rows = (html: string) => [...html.matchAll(/<tr><td>[^<]*<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((m) => `${m[1]}: ${m[2]}`);
    const audit = (query: string) => owner.browser.get(`/dashboard/audit/?${query}`);

    const page = await audit(`action=settings_changed&email=${encodeURIComponent(admin.email)}`);
    expect(page.status).toBe(200);
    expect(rows(page.text)).toEqual([`${admin.email}: Changed the settings: display_name`]);
    expect(page.text).toContain('<option value="settings_changed" selected>settings_changed</option>');
    expect(rows((await audit('action=settings_changed')).text).length).toBeGreaterThanOrEqual(2);
    const today = clock.now().toISOString().slice(0, 10);
    expect(rows((await audit(`action=settings_changed&from=${today}&to=${today}`)).text).length).toBeGreaterThanOrEqual(2);
    const none = await audit('action=settings_changed&from=2000-01-01&to=2000-01-31');
    expect(rows(none.text)).toEqual([]);
    expect(none.text).toContain('No entries match these filters.');
    // A nonsense value is dropped, the others still apply; nothing is a 500.
    const odd = await audit(`action=Robert');DROP&email=${encodeURIComponent(admin.email)}&from=2026-02-30&to=%00`);
    expect(odd.status).toBe(200);
    expect(rows(odd.text).every((r) => r.startsWith(admin.email))).toBe(true);
    expect(rows(odd.text).length).toBeGreaterThan(0);
  });
  it('an admin saves a PNG logo with the colours in one form: stored as the API stores it, on the payment page and in the preview; removed again; audited', async () => {
    const { browser } = await member(svc.t, svc.api, 'admin');
    const page = await browser.get('/dashboard/settings/');
    expect(page.text).toContain('<form method="post" action="/dashboard/settings/" enctype="multipart/form-data"');
    expect(page.text).toContain('accept="image/png,image/jpeg,image/webp"');
    expect(page.text).not.toContain('action="/dashboard/settings/logo/remove/"');

    // The type the browser claims does not matter: the bytes do. The colour comes with it.
    const sent = await browser.postMultipart('/dashboard/settings/', brandForm({ brand_color: '#0F766E' }, fileForm(PNG, 'logo.bin', 'application/octet-stream')));
    expect(sent.status, sent.text.slice(0, 300)).toBe(303);
    expect(sent.location).toBe('/dashboard/settings/?saved=1');
    const brand = (await getBrand(db(), env()))!;
    expect(brand.logo_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(brand.brand_color).toBe('#0f766e');
    const logoUrl = (await svc.api.get('/environment/branding/')).body.logo_url as string;
    expect(logoUrl).toContain(brand.logo_sha256);
    const served = await fetch(logoUrl);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    const after = await browser.get(sent.location!);
    expect(after.text).toContain('Settings saved');
    expect(after.text).toContain('form="logo-remove"');
    expect(after.text).toContain('<form id="logo-remove" method="post" action="/dashboard/settings/logo/remove/">');
    const preview = await browser.get('/dashboard/settings/preview/?brand_color=%230f766e');
    expect(preview.text).toContain(`<img class="merchant__logo" src="/brand/${env()}/${brand.logo_sha256}"`);
    const created = await svc.api.post('/transaction/', priced('EUR', 3));
    expect(await (await fetch(`${svc.t.url}/pay/${created.body.token}/`)).text()).toContain(brand.logo_sha256!);

    // A JPEG replaces it, by the same rules; a form without a file leaves the logo as it is.
    expect((await browser.postMultipart('/dashboard/settings/', brandForm({}, fileForm(JPEG, 'logo.jpg', 'image/jpeg')))).status).toBe(303);
    const jpeg = (await getBrand(db(), env()))!.logo_sha256;
    expect(jpeg).not.toBe(brand.logo_sha256);
    expect((await browser.postMultipart('/dashboard/settings/', brandForm({ display_name: 'No file' }))).status).toBe(303);
    expect(await getBrand(db(), env())).toMatchObject({ display_name: 'No file', logo_sha256: jpeg });

    const removed = await browser.post('/dashboard/settings/logo/remove/', {});
    expect(removed.status).toBe(303);
    expect((await getBrand(db(), env()))!.logo_sha256).toBeNull();
    expect((await svc.api.get('/environment/branding/')).body.logo_url).toBeNull();
    expect((await fetch(logoUrl)).status).toBe(404);
    expect((await browser.get(removed.location!)).text).toContain('Logo removed');

    const actions = (await auditOf(db(), env(), { limit: 50, offset: 0 })).map((r) => r.action);
    expect(actions.filter((a) => a === 'logo_changed')).toHaveLength(2);
    expect(actions.filter((a) => a === 'logo_removed')).toHaveLength(1);
    const owner = (await member(svc.t, svc.api, 'owner')).browser;
    expect((await owner.get('/dashboard/audit/')).text).toContain('Changed the logo (image/png)');
  });

  it('an SVG, a file too large or not an image, or an invalid colour beside a good logo: a 400 with the field marked, nothing saved; a huge body is a 413 page', async () => {
    const { browser } = await member(svc.t, svc.api, 'owner');
    expect((await browser.postMultipart('/dashboard/settings/', brandForm({}, fileForm(PNG, 'logo.png', 'image/png')))).status).toBe(303);
    const before = await getBrand(db(), env());
    const refused = async (form: FormData, field: string, message: string) => {
      const res = await browser.postMultipart('/dashboard/settings/', form);
      expect(res.status, res.text.slice(0, 300)).toBe(400);
      expect(res.text).toContain('Nothing was saved');
      expect(res.text).toMatch(new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
      expect(res.text).toContain(`data-testid="error-${field}"`);
      expect(res.text).toContain(message);
      expect(await getBrand(db(), env())).toEqual(before);
    };
    await refused(brandForm({ display_name: 'Not saved' }, fileForm(SVG, 'logo.svg', 'image/svg+xml')), 'logo', 'is not a PNG, JPEG or WebP image');
    await refused(brandForm({}, fileForm(Buffer.from('just some text'), 'logo.png', 'image/png')), 'logo', 'is not a PNG, JPEG or WebP image');
    // One byte over the API's limit, though its first bytes are a PNG's.
    await refused(brandForm({}, fileForm(Buffer.concat([PNG, Buffer.alloc(256 * 1024 + 1 - PNG.length)]), 'big.png', 'image/png')), 'logo', 'larger than 256 KiB');
    // A good logo is not saved either when a colour is wrong: the form is one.
    await refused(brandForm({ accent_color: '#12' }, fileForm(JPEG, 'logo.jpg', 'image/jpeg')), 'accent_color', 'Enter a colour as #rrggbb');
    // Far past any logo: not read at all, and still no 500.
    const huge = await browser.postMultipart('/dashboard/settings/', fileForm(Buffer.alloc(3 * 1024 * 1024), 'huge.png', 'image/png'));
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('larger than 256 KiB');
    expect(await getBrand(db(), env())).toEqual(before);
  });

  it('a viewer sees no logo field and gets 403 for the form or a removal; without its CSRF token the form is a 403; nothing changes', async () => {
    const owner = (await member(svc.t, svc.api, 'owner')).browser;
    expect((await owner.postMultipart('/dashboard/settings/', brandForm({}, fileForm(PNG, 'logo.png', 'image/png')))).status).toBe(303);
    const before = await getBrand(db(), env());
    const viewer = (await member(svc.t, svc.api, 'viewer')).browser;
    const page = await viewer.get('/dashboard/settings/');
    expect(page.text).not.toContain('name="logo"');
    expect(page.text).not.toContain('name="intent"');
    expect((await viewer.postMultipart('/dashboard/settings/', brandForm({ display_name: 'Viewer' }, fileForm(JPEG, 'logo.jpg', 'image/jpeg')))).status).toBe(403);
    expect((await viewer.post('/dashboard/settings/logo/remove/', {})).status).toBe(403);
    expect((await owner.postMultipart('/dashboard/settings/', brandForm({ display_name: 'No token' }, fileForm(JPEG, 'logo.jpg', 'image/jpeg')), { csrf: null })).status).toBe(403);
    expect((await owner.post('/dashboard/settings/logo/remove/', {}, { csrf: null })).status).toBe(403);
    expect(await getBrand(db(), env())).toEqual(before);
  });

  it('"Preview" shows the form’s colours in the preview and in words without saving them; a moved picker wins over the text', async () => {
    const { browser } = await member(svc.t, svc.api, 'owner');
    expect((await browser.post('/dashboard/settings/', { display_name: 'Saved name', brand_color: '#1d4ed8', accent_color: '' })).status).toBe(303);
    const before = await getBrand(db(), env());
    // The picker was shown at the saved colour and moved: it wins over the text left as it was.
    const res = await browser.postMultipart('/dashboard/settings/', brandForm({ intent: 'preview', display_name: 'Unsaved name', brand_color: '#1d4ed8', brand_color_picker: '#7F7F7F', brand_color_shown: '#1d4ed8', accent_color_picker: '#1d4ed8', accent_color_shown: '#1d4ed8' }, fileForm(PNG, 'logo.png', 'image/png')));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.text).toContain('nothing is saved until you press Save');
    expect(res.text).toContain('Payment page preview (not saved yet)');
    expect(res.text).toContain('<iframe src="/dashboard/settings/preview/?display_name=Unsaved+name&amp;brand_color=%237F7F7F"');
    expect(res.text).toContain('value="#7F7F7F"');
    expect(res.text).toContain('<input type="hidden" name="brand_color_shown" value="#7f7f7f"');
    // Neither text reads on this grey: the page will darken it, and says so before saving.
    expect(res.text).toMatch(/Warning: neither dark nor light text reaches 4.5:1 on #7f7f7f. The payment page will darken the button to #[0-9a-f]{6}, with light text \(4\.\d+:1\)/);
    expect(await getBrand(db(), env())).toEqual(before);
    // An unmoved picker leaves the text: emptied, the page's own colour.
    const emptied = await browser.post('/dashboard/settings/', { intent: 'preview', display_name: 'Saved name', brand_color: '', brand_color_picker: '#1d4ed8', brand_color_shown: '#1D4ED8' });
    expect(emptied.text).toContain('<iframe src="/dashboard/settings/preview/?display_name=Saved+name"');
    expect(emptied.text).toContain('None: the pay button keeps the page’s own colour.');
    // An invalid colour previews nothing: the error, and the saved brand in the preview.
    const invalid = await browser.post('/dashboard/settings/', { intent: 'preview', brand_color: 'blue' });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('data-testid="error-brand_color"');
    expect(invalid.text).toContain('<iframe src="/dashboard/settings/preview/?display_name=Saved+name&amp;brand_color=%231d4ed8"');
    expect(await getBrand(db(), env())).toEqual(before);
  });

  it('the preview route renders the payment screen in the brand it is given: framed by the dashboard only, no script, no form that leads anywhere, the name escaped', async () => {
    const anonymous = await fetch(`${svc.t.url}/dashboard/settings/preview/`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/sign-in/');
    const { browser } = await member(svc.t, svc.api, 'viewer');
    const name = '<script>alert("x")</script> & Co';
    const res = await browser.get(`/dashboard/settings/preview/?display_name=${encodeURIComponent(name)}&brand_color=%23ffdd00&accent_color=%23123456`);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(res.text).toContain('<meta name="robots" content="noindex, nofollow">');
    // The screen itself, with its sample order and the sandbox's card form, and nothing of a real payment.
    expect(res.text).toContain('Sample product');
    expect(res.text).toContain('<span>Pay €24.50</span>');
    expect(res.text).toContain('<span class="topbar__test">Test mode</span>');
    expect(res.text).not.toMatch(/<script/i);
    expect(res.text).toContain('<input type="hidden" name="csrf" value/>');
    expect(res.text).toContain('<h1 id="merchant-name" class="merchant__name">&lt;script>alert(&quot;x&quot;)&lt;/script> &amp; Co</h1>');
    expect(res.text).toContain('<title>Pay &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co</title>');
    // Its colours: a stylesheet of our origin, by the payment page's rule (dark text on the yellow).
    const sheet = /<link rel="stylesheet" href="(\/dashboard\/settings\/preview\/brand\.css\?[^"]+)">/.exec(res.text)![1]!.replaceAll('&amp;', '&');
    expect(sheet).toBe('/dashboard/settings/preview/brand.css?brand_color=%23ffdd00&accent_color=%23123456');
    const css = await browser.get(sheet);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.text).toContain('--pay:#ffdd00;--on-pay:#161a22');
    expect(css.text).toContain('.merchant{border-top:4px solid #123456}');
    // Nothing in the query escapes the rules: a colour that is not one is a 400, here and for the stylesheet.
    expect((await browser.get('/dashboard/settings/preview/?brand_color=red;}body{display:none')).status).toBe(400);
    expect((await browser.get('/dashboard/settings/preview/brand.css?accent_color=%23fff%7D')).status).toBe(400);
    expect((await browser.get('/dashboard/settings/preview/?display_name=a&display_name=b')).status).toBe(400);
    // The page's own colours: no stylesheet of the brand.
    expect((await browser.get('/dashboard/settings/preview/')).text).not.toContain('brand.css');
  });
});
