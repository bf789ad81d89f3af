import { describe, expect, it } from 'vitest';
import { contrast } from '../../server/domain/contrast';
import { createHash } from 'node:crypto';
import { createApiKey } from '../../server/store/api-keys';
import { getBrand, saveBrandForm } from '../../server/store/branding';
import { withAuditFailing } from './failing-audit';
import { Client, ENGINES, problemPaths, useTestService } from './harness';

// The environment's brand through the API, and its assets as the payment page loads them:
// colours (adjusted to WCAG AA, and said so), the logo (PNG, JPEG or WebP by their bytes,
// size-limited), served from our origin with the right type and cached for good.

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** The start of a JPEG (SOI, JFIF APP0): what a JPEG's bytes are recognised by. */
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(64), Buffer.from('ffd9', 'hex')]);
/** A WebP's RIFF header. */
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(18)]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

describe.each(ENGINES)('branding on %s', (engine) => {
  const svc = useTestService(engine, 'Shop account');

  it('keeps a colour white or dark text reads on as sent, darkens one neither does and says so', async () => {
    // Yellow takes dark text on the button: kept, nothing adjusted.
    const yellow = await svc.api.patch('/environment/branding/', { brand_color: '#FFDD00', display_name: 'Tostadores Ana' });
    expect(yellow.status, yellow.text).toBe(200);
    expect(yellow.body).toMatchObject({ brand_color: '#ffdd00', adjustments: [] });
    // A mid grey: white text 4:1, dark text 4.35:1.
    const grey = await svc.api.patch('/environment/branding/', { brand_color: '#7F7F7F' });
    const applied = grey.body.brand_color as string;
    expect(applied).toMatch(/^#[0-9a-f]{6}$/);
    expect(contrast(applied, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(grey.body.adjustments).toEqual([
      { field: 'brand_color', requested: '#7F7F7F', applied, contrast: 4, reason: expect.stringContaining('reaches WCAG AA (4.5:1)') },
    ]);
    expect((await svc.api.get('/environment/branding/')).body).toMatchObject({ name: 'Shop account', display_name: 'Tostadores Ana', brand_color: applied, adjustments: [] });

    const blue = await svc.api.patch('/environment/branding/', { brand_color: '#1d4ed8' });
    expect(blue.body).toMatchObject({ brand_color: '#1d4ed8', adjustments: [], display_name: 'Tostadores Ana' });
    const cleared = await svc.api.patch('/environment/branding/', { brand_color: null, display_name: null });
    expect(cleared.body).toMatchObject({ brand_color: null, display_name: null, name: 'Shop account' });
  });

  it.each([
    [{ brand_color: 'red' }, 'brand_color'],
    [{ brand_color: '#12345' }, 'brand_color'],
    [{ accent_color: '#gggggg' }, 'accent_color'],
    [{ support_email: 'help@' }, 'support_email'],
    [{ display_name: '' }, 'display_name'],
    [{ logo: 'x' }, 'logo'],
  ])('refuses %j with a 400 naming the field', async (body, path) => {
    const res = await svc.api.patch('/environment/branding/', body);
    expect(res.status).toBe(400);
    expect(problemPaths(res)).toContain(path);
  });

  it("the dashboard settings form's brand fields and logo are saved together or not at all", async () => {
    const db = svc.t.service.deps.database.db;
    const shop = await svc.t.newEnvironment('Form shop');
    const environmentId = shop.keys.environment_id;
    const by = { userId: null, email: 'owner@shop.example', ip: null };
    const logo = { sha256: createHash('sha256').update(PNG).digest('hex'), contentType: 'image/png', data: new Uint8Array(PNG) };
    await saveBrandForm(db, environmentId, { display_name: 'Form shop one' }, logo, by, new Date());
    expect(await getBrand(db, environmentId)).toMatchObject({ display_name: 'Form shop one', logo_sha256: logo.sha256 });
    // A logo the database refuses (no bytes): the brand's change made before it goes too.
    await expect(saveBrandForm(db, environmentId, { display_name: 'Form shop two' }, { ...logo, sha256: 'f'.repeat(64), data: null as never }, by, new Date())).rejects.toThrow();
    expect(await getBrand(db, environmentId)).toMatchObject({ display_name: 'Form shop one', logo_sha256: logo.sha256 });
  });

  it('audits each change in the audit log by the API key that made it, in the transaction that makes it: no entry, no change', async () => {
    const db = svc.t.service.deps.database.db;
    const shop = await svc.t.newEnvironment('Audited shop');
    const environmentId = shop.keys.environment_id;
    const key = await createApiKey(db, { id: environmentId, mode: 'sandbox' }, 'Brand bot', new Date());
    const api = new Client(svc.t.url, { ...shop.keys, public_key: key.public_key, secret_key: key.secret_key });
    const entries = async () =>
      (await db.selectFrom('audit_log').select(['action', 'detail', 'user_id', 'email']).where('environment_id', '=', environmentId).orderBy('id').execute()).map((r) => ({ ...r, detail: JSON.parse(r.detail ?? '{}') }));
    const by = { api_key: key.id, api_key_label: 'Brand bot' };

    expect((await api.patch('/environment/branding/', { display_name: 'Audited shop', support_email: 'help@shop.example' })).status).toBe(200);
    // Sent again unchanged, with one new value: only what changed is named.
    expect((await api.patch('/environment/branding/', { display_name: 'Audited shop', brand_color: '#1d4ed8' })).status).toBe(200);
    const logo = await api.post('/environment/branding/logo/', { content_type: 'image/png', data: PNG.toString('base64') });
    expect(logo.status, logo.text).toBe(201);
    expect((await api.delete('/environment/branding/logo/')).status).toBe(204);
    expect((await api.delete('/environment/branding/logo/')).status).toBe(204);
    expect(await entries()).toEqual([
      { action: 'settings_changed', detail: { fields: 'display_name, support_email', ...by }, user_id: null, email: null },
      { action: 'settings_changed', detail: { fields: 'brand_color', ...by }, user_id: null, email: null },
      { action: 'logo_changed', detail: { type: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), ...by }, user_id: null, email: null },
      { action: 'logo_removed', detail: by, user_id: null, email: null },
    ]);

    // A failing database is no answer the API declares: sent without the client's contract check.
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${svc.t.url}/v1${path}`, { method, headers: { authorization: api.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await withAuditFailing(engine, db, environmentId, async () => {
      expect((await send('PATCH', '/environment/branding/', { display_name: 'Not audited' })).status).toBe(500);
      expect((await send('POST', '/environment/branding/logo/', { content_type: 'image/png', data: PNG.toString('base64') })).status).toBe(500);
    });
    expect((await api.get('/environment/branding/')).body).toMatchObject({ display_name: 'Audited shop', logo_url: null });
    expect(await entries()).toHaveLength(4);
  });

  it('serves each logo from our origin with its type, cached for good under a URL that changes with it', async () => {
    let previous: string | null = null;
    for (const [type, bytes] of [['image/png', PNG], ['image/jpeg', JPEG], ['image/webp', WEBP]] as const) {
      const res = await svc.api.post('/environment/branding/logo/', { content_type: type, data: bytes.toString('base64') });
      expect(res.status, res.text).toBe(201);
      const url = res.body.logo_url as string;
      expect(url.startsWith(`${svc.t.url}/brand/`)).toBe(true);
      const served = await fetch(url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
      // The previous logo's URL names an image that is gone.
      if (previous) expect((await fetch(previous)).status).toBe(404);
      previous = url;
    }
    expect((await svc.api.delete('/environment/branding/logo/')).status).toBe(204);
    expect((await svc.api.get('/environment/branding/')).body.logo_url).toBeNull();
    expect((await fetch(previous!)).status).toBe(404);
  });

  it('refuses a logo that is not a PNG, JPEG or WebP by its bytes, and one over 256 KiB', async () => {
    const upload = (content_type: string, bytes: Buffer) => svc.api.post('/environment/branding/logo/', { content_type, data: bytes.toString('base64') });
    const svg = await upload('image/svg+xml', SVG);
    expect(svg.status).toBe(400);
    expect(problemPaths(svg)).toEqual(['content_type']);
    const disguised = await upload('image/png', SVG);
    expect(disguised.status).toBe(400);
    expect(disguised.body.errors[0]).toEqual({ path: 'content_type', message: 'does not match the bytes (they are not a PNG, JPEG or WebP image)' });
    const mislabelled = await upload('image/png', JPEG);
    expect(mislabelled.body.errors[0].message).toBe('does not match the bytes (they are image/jpeg)');
    const large = await upload('image/png', Buffer.concat([PNG, Buffer.alloc(256 * 1024)]));
    expect(large.status).toBe(413);
    expect(problemPaths(large)).toEqual(['data']);
    // A body far over the route's limit is refused as it arrives, with the same problem.
    const huge = await upload('image/png', Buffer.alloc(2 * 1024 * 1024));
    expect(huge.status).toBe(413);
    expect((await svc.api.get('/environment/branding/')).body.logo_url).toBeNull();
  });

  it('puts the brand on the payment page: its stylesheet and logo from our origin, within the CSP', async () => {
    await svc.api.patch('/environment/branding/', { brand_color: '#00a650', accent_color: '#ffdd00', display_name: 'Verde Café' });
    const logo = await svc.api.post('/environment/branding/logo/', { content_type: 'image/png', data: PNG.toString('base64') });
    const tx = await svc.api.post('/transaction/', { currency: 'EUR', products: [{ amount: 1, product: { name: 'Tea', price: 3 } }] });
    const page = await fetch(tx.body.payment_url);
    const html = await page.text();
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(html).toContain('Verde Café');
    const logoPath = new URL(logo.body.logo_url as string).pathname;
    expect(html).toContain(`<img class="merchant__logo" src="${logoPath}" alt`);
    const sheet = /<link rel="stylesheet" href="(\/brand\/[^"]+\.css)">/.exec(html);
    expect(sheet).not.toBeNull();
    expect(html).not.toMatch(/ style="/);
    const css = await fetch(`${svc.t.url}${sheet![1]}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const text = await css.text();
    const applied = (await svc.api.get('/environment/branding/')).body.brand_color as string;
    // Green keeps its colour on the button with dark text; links on the light page are darker.
    expect(applied).toBe('#00a650');
    expect(text).toContain(`--pay:${applied};--on-pay:#161a22`);
    expect(text.startsWith(`:root{--accent:${applied}`)).toBe(false);
    expect(text).toContain('.merchant{border-top:4px solid #ffdd00}');
    // A new brand is a new stylesheet URL; the old one is not served with new content.
    await svc.api.patch('/environment/branding/', { brand_color: '#7c3aed' });
    expect((await fetch(`${svc.t.url}${sheet![1]}`)).status).toBe(404);
    const again = await (await fetch(tx.body.payment_url)).text();
    expect(/<link rel="stylesheet" href="(\/brand\/[^"]+\.css)">/.exec(again)![1]).not.toBe(sheet![1]);
  });

  it("answers 404 for another environment's assets and for names that are no asset", async () => {
    for (const path of ['/brand/not-a-uuid/x.css', `/brand/01943a6e-1111-7000-8000-000000000001/${'a'.repeat(64)}`, '/brand/01943a6e-1111-7000-8000-000000000001/abc.css']) {
      expect((await fetch(`${svc.t.url}${path}`)).status).toBe(404);
    }
  });
});
