import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiKeys } from '../../server/store/api-keys';
import { auditOf } from '../../server/store/audit';
import { Browser, freshIp, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';

// Every dashboard form that stores or looks up text, posted with a NUL or a lone surrogate
// in each of its fields, one at a time (issue 44: a NUL in the sign-in email or a key's
// label was a 500 on PostgreSQL, which refuses both in a text; SQLite stored them). Each
// answer is the form's usual refusal, a 4xx or the page again, never a 5xx; nothing with
// such a character is stored.

const BAD = { nul: 'x\u0000y', surrogate: 'x\ud800y' } as const;

interface Form {
  path: string;
  /** The fields as a valid post has them; each is made bad in turn. */
  fields: Record<string, string>;
  /** Anonymous forms: the page to open first (for its double-submit token). */
  anonymous?: string;
}

const FORMS: Form[] = [
  { path: '/dashboard/sign-in/', anonymous: '/dashboard/sign-in/', fields: { email: 'nobody@shop.example', password: 'correct horse battery staple' } },
  { path: '/dashboard/sign-in/forgot/', anonymous: '/dashboard/sign-in/forgot/', fields: { email: 'nobody@shop.example' } },
  { path: '/dashboard/sign-in/reset/', anonymous: '/dashboard/sign-in/forgot/', fields: { token: 'A'.repeat(43), password: 'a new long passphrase', confirm: 'a new long passphrase' } },
  { path: '/dashboard/keys/', fields: { label: 'Warehouse' } },
  { path: '/dashboard/team/invite/', fields: { email: 'new.member@shop.example', role: 'viewer' } },
  { path: '/dashboard/settings/', fields: { display_name: 'Shop', support_email: 'help@shop.example', brand_color: '#112233', accent_color: '' } },
  { path: '/dashboard/catalogue/product/', fields: { name: 'Mug', description: 'A mug', price: '12', currency: 'EUR' } },
  { path: '/dashboard/catalogue/tax/', fields: { name: 'VAT', rate: '21' } },
  { path: '/dashboard/webhook-endpoints/', fields: { url: 'https://hooks.shop.example/in', description: 'Orders', events: '*' } },
  { path: '/dashboard/environment/', fields: { environment: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e' } },
  { path: '/dashboard/account/security/password/', fields: { current: 'correct horse battery staple', password: 'another long passphrase', confirm: 'another long passphrase' } },
];

const CASES = FORMS.flatMap((form) => Object.keys(form.fields).flatMap((field) => Object.entries(BAD).map(([kind, value]) => [`${form.path} ${field} (${kind})`, form, field, value] as const)));

describe.each(ENGINES)('dashboard text input on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let owner: Browser;

  beforeAll(async () => {
    t = await startTestService(engine, { env: { TRUST_PROXY: 'true' } });
    shop = await t.newEnvironment('Text input shop');
    owner = (await member(t, shop, 'owner', { 'x-forwarded-for': freshIp() })).browser;
  });
  afterAll(() => t?.close());

  it.each(CASES)('%s: the usual refusal, never a 5xx', async (_name, form, field, value) => {
    const browser = form.anonymous ? new Browser(t.url, { 'x-forwarded-for': freshIp() }) : owner;
    await browser.get(form.anonymous ?? form.path.replace(/[^/]*\/$/, ''));
    const res = await browser.post(form.path, { ...form.fields, [field]: value });
    expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
  });

  it('stored nothing with either character', async () => {
    const db = t.service.deps.database.db;
    const keys = await listApiKeys(db, shop.keys.environment_id);
    const audit = await auditOf(db, shop.keys.environment_id, { limit: 1000, offset: 0 });
    const stored = JSON.stringify([keys, audit, (await shop.get('/product/')).body, (await shop.get('/tax/')).body, (await shop.get('/webhook_endpoint/')).body]);
    for (const value of Object.values(BAD)) expect(stored).not.toContain(JSON.stringify(value).slice(1, -1));
  });
});
