import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';

// The catalogue in the dashboard: what it creates, edits, disables and enables is what the
// API shows (same schemas, same store, same events); the API's rules refuse the same
// input, naming the field; viewers see but cannot change; another environment's object
// is not found.

const idOf = (location: string | null) => /\/catalogue\/[a-z]+\/([0-9a-f-]{36})\//.exec(location ?? '')?.[1];

describe.each(ENGINES)('dashboard catalogue on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Catalogue shop');
  });
  afterAll(() => t?.close());

  const eventsOf = async (id: string) => ((await shop.get(`/event/?object_id=${id}`)).body.results as { type: string }[]).map((e) => e.type).sort();

  it('creates a product the API reads, edits it, disables and enables it, each with its event and audit entry', async () => {
    const { browser: admin } = await member(t, shop, 'admin');
    expect((await admin.get('/dashboard/catalogue/')).text).toContain('Nothing here yet.');
    const form = await admin.get('/dashboard/catalogue/product/new/');
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="price"');
    const made = await admin.post('/dashboard/catalogue/product/', { product_id: 'mug-01', name: 'Stoneware mug', description: '', price: '12.50', currency: 'EUR' });
    expect(made.status, made.text.slice(0, 500)).toBe(303);
    const id = idOf(made.location)!;
    expect(id).toBeDefined();
    const api = await shop.get(`/product/${id}/`);
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ product_id: 'mug-01', name: 'Stoneware mug', description: null, price: 12.5, currency: 'EUR', enabled: true });
    expect((await admin.get('/dashboard/catalogue/')).text).toContain('Stoneware mug');
    expect((await admin.get(made.location!)).text).toContain('Created.');

    const edited = await admin.post(`/dashboard/catalogue/product/${id}/`, { product_id: 'mug-01', name: 'Big mug', description: 'Holds 500 ml', price: '14', currency: 'EUR' });
    expect(edited.status).toBe(303);
    expect((await shop.get(`/product/${id}/`)).body).toMatchObject({ name: 'Big mug', description: 'Holds 500 ml', price: 14, enabled: true });

    expect((await admin.post(`/dashboard/catalogue/product/${id}/enabled/`, { enabled: 'false' })).status).toBe(303);
    expect((await shop.get(`/product/${id}/`)).body.enabled).toBe(false);
    expect((await shop.get('/product/?enabled=false')).body.results.map((p: { id: string }) => p.id)).toContain(id);
    const disabledPage = await admin.get(`/dashboard/catalogue/product/${id}/`);
    expect(disabledPage.text).toContain('Disabled');
    expect((await admin.post(`/dashboard/catalogue/product/${id}/enabled/`, { enabled: 'true' })).status).toBe(303);
    expect((await shop.get(`/product/${id}/`)).body.enabled).toBe(true);

    expect(await eventsOf(id)).toEqual(['product.created', 'product.updated', 'product.updated', 'product.updated']);
    const audit = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(audit.map((a) => a.action).filter((a) => a.startsWith('catalogue_')).sort()).toEqual(['catalogue_created', 'catalogue_disabled', 'catalogue_enabled', 'catalogue_updated']);
  });

  it('refuses what the API refuses, naming the field, and stores nothing', async () => {
    const { browser: admin } = await member(t, shop, 'admin');
    const before = (await shop.get('/coupon/')).body.count;
    // The API's rule across fields: a fixed coupon needs a currency.
    const fixed = await admin.post('/dashboard/catalogue/coupon/', { name: 'Ten off', code: '', kind: 'fixed', value: '10', currency: '' });
    expect(fixed.status).toBe(400);
    expect(fixed.text).toContain('Nothing was saved');
    expect(fixed.text).toContain('is required for a fixed coupon');
    expect(fixed.text).toContain('value="Ten off"');
    // More decimals than the currency has, an unknown currency, a word for a number, a control character.
    for (const bad of [
      { name: 'Mug', price: '1.001', currency: 'EUR' },
      { name: 'Mug', price: '1', currency: 'XXQ' },
      { name: 'Mug', price: 'twelve', currency: 'EUR' },
      { name: 'Mu\u0007g', price: '1', currency: 'EUR' },
      { name: '', price: '1', currency: 'EUR' },
    ]) {
      const res = await admin.post('/dashboard/catalogue/product/', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await admin.post('/dashboard/catalogue/coupon/', { name: 'Ten percent', code: 'TEN', kind: 'percent', value: '10', currency: '' })).status).toBe(303);
    expect((await shop.get('/coupon/')).body.count).toBe(before + 1);
    // An edit that breaks a rule leaves the object as it was.
    const plan = await shop.post('/plan/', { name: 'Club', amount: 19.9, currency: 'EUR', interval: 'month' });
    const bad = await admin.post(`/dashboard/catalogue/plan/${plan.body.id}/`, { name: 'Club', plan_id: '', description: '', amount: '19.9', currency: 'EUR', interval: 'fortnight', interval_count: '1', trial_days: '0' });
    expect(bad.status).toBe(400);
    expect((await shop.get(`/plan/${plan.body.id}/`)).body).toMatchObject({ name: 'Club', interval: 'month' });
    expect((await admin.post(`/dashboard/catalogue/plan/${plan.body.id}/enabled/`, { enabled: 'maybe' })).status).toBe(400);
  });

  it('every group lists and creates; viewers read but cannot change; CSRF is required', async () => {
    const { browser: admin } = await member(t, shop, 'admin');
    const forms: Record<string, Record<string, string>> = {
      plan: { name: 'Tea club', amount: '9.90', currency: 'EUR', interval: 'month', interval_count: '3', trial_days: '7' },
      tax: { name: 'VAT', rate: '21' },
      shipping: { name: 'Courier', price: '4,95', currency: 'EUR' },
      coupon: { name: 'Welcome', code: 'WELCOME5', kind: 'fixed', value: '5', currency: 'EUR' },
    };
    const ids: Record<string, string> = {};
    for (const [group, form] of Object.entries(forms)) {
      const made = await admin.post(`/dashboard/catalogue/${group}/`, form);
      expect(made.status, `${group}: ${made.text.slice(0, 300)}`).toBe(303);
      ids[group] = idOf(made.location)!;
      expect((await admin.get(`/dashboard/catalogue/${group}/`)).text).toContain(`/dashboard/catalogue/${group}/${ids[group]}/`);
    }
    expect((await shop.get(`/plan/${ids.plan}/`)).body).toMatchObject({ amount: 9.9, interval_count: 3, trial_days: 7 });
    expect((await shop.get(`/tax/${ids.tax}/`)).body).toMatchObject({ rate: 21 });
    expect((await shop.get(`/shipping/${ids.shipping}/`)).body).toMatchObject({ price: 4.95 });
    expect((await shop.get(`/coupon/${ids.coupon}/`)).body).toMatchObject({ kind: 'fixed', value: 5, currency: 'EUR' });

    const { browser: viewer } = await member(t, shop, 'viewer');
    const seen = await viewer.get(`/dashboard/catalogue/tax/${ids.tax}/`);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('VAT');
    expect(seen.text).not.toContain('Save changes');
    expect((await viewer.get('/dashboard/catalogue/tax/new/')).status).toBe(403);
    expect((await viewer.post('/dashboard/catalogue/tax/', { name: 'Sneaky', rate: '1' })).status).toBe(403);
    expect((await viewer.post(`/dashboard/catalogue/tax/${ids.tax}/`, { name: 'Sneaky' })).status).toBe(403);
    expect((await viewer.post(`/dashboard/catalogue/tax/${ids.tax}/enabled/`, { enabled: 'false' })).status).toBe(403);
    expect((await admin.post(`/dashboard/catalogue/tax/${ids.tax}/enabled/`, { enabled: 'false' }, { csrf: null })).status).toBe(403);
    expect((await admin.post(`/dashboard/catalogue/tax/${ids.tax}/`, { name: 'Forged' }, { csrf: 'forged' })).status).toBe(403);
    expect((await shop.get(`/tax/${ids.tax}/`)).body).toMatchObject({ name: 'VAT', enabled: true });

    const other = await t.newEnvironment('Other shop');
    const { browser: stranger } = await member(t, other, 'owner');
    expect((await stranger.get(`/dashboard/catalogue/tax/${ids.tax}/`)).status).toBe(404);
    expect((await stranger.post(`/dashboard/catalogue/tax/${ids.tax}/enabled/`, { enabled: 'false' })).status).toBe(404);
    expect((await stranger.get('/dashboard/catalogue/tax/')).text).not.toContain(ids.tax!);
  });

  // The CSRF token may come as a header: a post whose body no form parser takes (JSON here)
  // then reached the forms without a body, a 500 on the catalogue's and the webhooks' forms.
  it('a post whose body is not a form is refused as an empty form, never a 500', async () => {
    const { browser: admin } = await member(t, shop, 'admin');
    await admin.get('/dashboard/catalogue/product/new/');
    const json = { csrf: null, headers: { 'x-csrf-token': admin.csrf, 'content-type': 'application/json' } };
    for (const path of ['/dashboard/catalogue/product/', '/dashboard/catalogue/plan/', '/dashboard/webhook-endpoints/']) {
      const res = await admin.post(path, {}, json);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(400);
    }
    const unknown = '0190f5a0-0000-7000-8000-0000000000ff';
    for (const path of [`/dashboard/catalogue/product/${unknown}/`, `/dashboard/webhook-endpoints/${unknown}/`, `/dashboard/webhook-endpoints/${unknown}/roll/`]) {
      expect((await admin.post(path, {}, json)).status, path).toBe(404);
    }
  });

  it('pages the list twenty at a time, newest first', async () => {
    const env = await t.newEnvironment('Many products');
    for (let i = 1; i <= 21; i++) await env.post('/product/', { name: `Item ${String(i).padStart(2, '0')}`, price: i, currency: 'EUR' });
    const { browser } = await member(t, env, 'viewer');
    const first = await browser.get('/dashboard/catalogue/product/');
    expect(first.text).toContain('Item 21');
    expect(first.text).not.toContain('Item 01<');
    expect(first.text).toContain('?page=2');
    const second = await browser.get('/dashboard/catalogue/product/?page=2');
    expect(second.text).toContain('Item 01<');
    expect(second.text).not.toContain('Item 21');
  });
});
