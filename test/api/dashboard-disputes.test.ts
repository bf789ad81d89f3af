import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { JOB_NAMES } from '../../server/jobs';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { FILES, pdfOfSize } from './documents';
import { type Client, ENGINES, testClock, type TestService } from './harness';
import { startIsolatedService } from './database';
import { payToken, priced } from './pay';

// A dispute's page in the dashboard: what it is and its evidence for everyone; for admins
// and owners the evidence form, the file form and the two answers (submit, accept), each
// asked once more, through the API's own use cases: the same fields, files and limits,
// state rules, events and refusals as POST /v1/dispute/{id}/evidence|submit|accept/.
// Viewers see and change nothing.

const MIB = 1024 * 1024;
const PDF = FILES['application/pdf'];
const PNG = FILES['image/png'];

/** The page's file form as a browser posts it: each file with the type the browser claims for it. */
function filesForm(...files: { bytes: Buffer; name: string; type: string }[]): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
  return form;
}
const pdf = (bytes: Buffer = PDF.bytes, name = 'delivery.pdf') => ({ bytes, name, type: 'application/pdf' });

describe.each(ENGINES)('dashboard disputes on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  const clock = testClock();

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: '0' } });
    shop = await t.newEnvironment('Disputed shop');
  });
  afterAll(() => t?.close());

  /** A sale paid with a disputing test card, disputed by the sandbox bank at once. */
  async function disputed(card: string = TEST_CARDS.disputedFraudulent, price = 30): Promise<any> {
    const created = await shop.post('/transaction/', priced('EUR', price));
    expect(await payToken(shop.url, created.body.token, card)).toBe(200);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    await t.service.jobs.runOnce(JOB_NAMES.sandboxDisputes);
    const list = (await shop.get(`/dispute/?sale=${sale.id}`)).body;
    expect(list.count).toBe(1);
    return { ...list.results[0], transaction: created.body.id };
  }
  const eventsOf = async (id: string) => ((await shop.get(`/event/?object_id=${id}`)).body.results as { type: string }[]).map((e) => e.type).sort();
  const auditActions = async () => (await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 1000, offset: 0 })).map((a) => a.action);

  it('shows a dispute, saves evidence, and submits it after a confirmation naming the environment', async () => {
    const d = await disputed();
    const { browser: admin } = await member(t, shop, 'admin');
    const list = await admin.get('/dashboard/disputes/');
    expect(list.text).toContain(`/dashboard/disputes/${d.id}/`);
    // In words: the status, the reason, the payment by its customer reference, the days left.
    const sale = (await shop.get(`/sale/${d.sale}/`)).body;
    expect(list.text).toMatch(/<td data-status="needs_response">Needs your response<\/td><td>Fraudulent \(the cardholder says they did not pay\)<\/td>/);
    expect(list.text).toContain(`Payment ${sale.reference}`);
    expect(list.text).not.toContain(d.sale);
    expect(list.text).toMatch(/ · \d+ days? left/);

    const page = await admin.get(`/dashboard/disputes/${d.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-status="needs_response">Needs your response</dd>');
    expect(page.text).toContain('Fraudulent (the cardholder says they did not pay)');
    expect(page.text).toContain(`>Payment ${sale.reference}</a>`);
    expect(page.text).toContain('€30.00');
    expect(page.text).toContain(`/dashboard/transactions/${d.transaction}/`);
    expect(page.text).toContain('Respond by');
    expect(page.text).toContain('Save evidence');
    // A fraud claim asks first for who the customer is; the rest is behind "More evidence", closed while empty.
    expect(page.text).toContain('The cardholder says they did not make this payment.');
    const more = page.text.indexOf('<details><summary>More evidence (optional)</summary>');
    expect(more).toBeGreaterThan(0);
    expect(page.text.indexOf('name="customer_name"')).toBeLessThan(more);
    expect(page.text.indexOf('name="product_description"')).toBeGreaterThan(more);
    // Submitting is the primary answer; accepting the quiet one.
    expect(page.text).toMatch(/<button type="submit" class="primary">Submit evidence<\/button>/);

    const saved = await admin.post(`/dashboard/disputes/${d.id}/evidence/`, { product_description: 'Desk lamp, delivered 3 January', shipping_date: '2026-01-03', customer_name: '' });
    expect(saved.status, saved.text.slice(0, 500)).toBe(303);
    const after = await admin.get(saved.location!);
    expect(after.text).toContain('Evidence saved. It has not been submitted yet.');
    expect(after.text).toContain('Desk lamp, delivered 3 January');
    const api = (await shop.get(`/dispute/${d.id}/`)).body;
    expect(api.status).toBe('needs_response');
    // Only what was given: an untouched field stays null, as after the API's own call.
    expect(api.evidence).toMatchObject({ product_description: 'Desk lamp, delivered 3 January', shipping_date: '2026-01-03', customer_name: null });
    expect(await eventsOf(d.id)).toEqual(['dispute.created', 'dispute.updated']);

    const ask = await admin.post(`/dashboard/disputes/${d.id}/submit/`, {});
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('This cannot be undone');
    expect(ask.text).toContain('In the environment Disputed shop (sandbox).');
    expect((await shop.get(`/dispute/${d.id}/`)).body.status).toBe('needs_response');

    const submitted = await admin.post(`/dashboard/disputes/${d.id}/submit/`, { confirm: 'yes' });
    expect(submitted.status).toBe(303);
    expect((await admin.get(submitted.location!)).text).toContain('Evidence submitted: the bank is reviewing the dispute.');
    const now = (await shop.get(`/dispute/${d.id}/`)).body;
    expect(now.status).toBe('under_review');
    expect(now.submitted).not.toBeNull();
    expect(await eventsOf(d.id)).toEqual(['dispute.created', 'dispute.updated', 'dispute.updated']);
    // No more form once it is submitted.
    expect((await admin.get(`/dashboard/disputes/${d.id}/`)).text).not.toContain('Save evidence');

    // The wrong state: what the API answers with a 409, and nothing changes.
    for (const [path, form] of [
      ['evidence', { product_description: 'Too late' }],
      ['submit', { confirm: 'yes' }],
      ['accept', {}],
      ['accept', { confirm: 'yes' }],
    ] as const) {
      const refused = await admin.post(`/dashboard/disputes/${d.id}/${path}/`, form);
      expect(refused.status, path).toBe(409);
      expect(refused.text).toContain('Nothing was changed: the dispute is under_review');
    }
    expect((await shop.get(`/dispute/${d.id}/`)).body).toEqual(now);
    expect((await shop.post(`/dispute/${d.id}/accept/`, {})).status).toBe(409);
    const actions = await auditActions();
    expect(actions.filter((a) => a === 'dispute_evidence_saved')).toHaveLength(1);
    expect(actions.filter((a) => a === 'dispute_submitted')).toHaveLength(1);
    const log = await (await member(t, shop, 'owner')).browser.get('/dashboard/audit/');
    expect(log.text).toContain(`Saved evidence for dispute ${d.id}`);
    expect(log.text).toContain(`Submitted the evidence of dispute ${d.id} (under_review)`);
  });

  it('names the disputed payment by its order id, customer and card, as text; never another environment\'s', async () => {
    // Markup and quotes in what the merchant's API client sent: shown, never run.
    const order = `<i>ord-"${Date.now()}'&</i>`;
    const email = `o'neil&co.${Date.now()}@shop.example`;
    const created = await shop.post('/transaction/', priced('EUR', 25, { order_id: order, customer_email: email }));
    expect(created.status, created.text).toBe(201);
    expect(await payToken(shop.url, created.body.token, TEST_CARDS.disputedNotReceived)).toBe(200);
    const other = await t.newEnvironment('Other disputed shop');
    const theirs = await other.post('/transaction/', priced('EUR', 26, { order_id: 'theirs-order', customer_email: 'theirs@shop.example' }));
    expect(await payToken(other.url, theirs.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
    await t.service.jobs.runOnce(JOB_NAMES.sandboxDisputes);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    const d = (await shop.get(`/dispute/?sale=${sale.id}`)).body.results[0];
    expect(sale.card).toMatchObject({ brand: 'visa', last4: '2685' });
    const escaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
    const parts = `<td data-testid="dispute-order">${escaped(order)}</td><td data-testid="dispute-customer">${escaped(email)}</td><td data-testid="dispute-card">visa •••• 2685</td>`;

    const { browser } = await member(t, shop, 'viewer');
    const list = (await browser.get('/dashboard/disputes/')).text;
    // Awaiting a response and among all disputes: the same row, its reference beside its order, customer and card.
    for (const label of ['awaiting', 'all']) {
      const row = new RegExp(`<tr data-testid="dispute-${label}"><td><a href="/dashboard/disputes/${d.id}/"[\\s\\S]*?</tr>`).exec(list)?.[0];
      expect(row, label).toContain(`<td>Payment ${sale.reference}</td>${parts}`);
    }
    expect(list).not.toContain('<i>ord-');
    expect(list).not.toContain('theirs-order');
    expect(list).not.toContain('theirs@shop.example');

    const page = (await browser.get(`/dashboard/disputes/${d.id}/`)).text;
    expect(page).toContain(
      `>Payment ${sale.reference}</a></dd><dt>Order id</dt><dd data-testid="dispute-order">${escaped(order)}</dd><dt>Customer</dt><dd data-testid="dispute-customer">${escaped(email)}</dd><dt>Card</dt><dd data-testid="dispute-card">visa •••• 2685</dd>`,
    );
    expect(page).not.toContain('<i>ord-');
    // Another environment's dispute is not found here, as a dispute that does not exist.
    const theirSale = (await other.get(`/sale/?transaction_id=${theirs.body.id}`)).body.results[0];
    const theirDispute = (await other.get(`/dispute/?sale=${theirSale.id}`)).body.results[0];
    expect((await browser.get(`/dashboard/disputes/${theirDispute.id}/`)).status).toBe(404);
  });

  it('accepts a dispute after a confirmation: lost at once, its outcome shown, dispute.closed sent', async () => {
    const d = await disputed();
    const { browser: owner } = await member(t, shop, 'owner');
    await owner.get(`/dashboard/disputes/${d.id}/`);
    const ask = await owner.post(`/dashboard/disputes/${d.id}/accept/`, {});
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('Accept the dispute?');
    expect(ask.text).toContain('In the environment Disputed shop (sandbox).');
    const accepted = await owner.post(`/dashboard/disputes/${d.id}/accept/`, { confirm: 'yes' });
    expect(accepted.status).toBe(303);
    const page = await owner.get(accepted.location!);
    expect(page.text).toContain('Dispute accepted.');
    expect(page.text).toContain('Outcome');
    const api = (await shop.get(`/dispute/${d.id}/`)).body;
    expect(api.status).toBe('lost');
    expect(api.closed).not.toBeNull();
    expect(await eventsOf(d.id)).toEqual(['dispute.closed', 'dispute.created']);
    expect((await auditActions()).filter((a) => a === 'dispute_accepted')).toHaveLength(1);
  });

  it('refuses bad evidence on its field, as the API does, and saves nothing', async () => {
    const d = await disputed();
    const { browser: admin } = await member(t, shop, 'admin');
    await admin.get(`/dashboard/disputes/${d.id}/`);
    const before = (await shop.get(`/dispute/${d.id}/`)).body;
    const cases: [Record<string, string>, string][] = [
      [{ product_description: 'x'.repeat(20_001) }, 'product_description'],
      [{ customer_name: 'Ada\u0007Lovelace' }, 'customer_name'],
      [{ refund_policy: 'ok', shipping_date: '2026-02-30' }, 'shipping_date'],
    ];
    for (const [form, field] of cases) {
      const refused = await admin.post(`/dashboard/disputes/${d.id}/evidence/`, form);
      expect(refused.status, field).toBe(400);
      expect(refused.text).toContain('Nothing was saved: correct the fields marked below.');
      expect(refused.text).toContain(`data-testid="error-${field}"`);
      expect(refused.text).toMatch(new RegExp(`id="ev-${field}"[^>]*aria-invalid="true"`));
      // The API refuses the same input naming the same field.
      const viaApi = await shop.post(`/dispute/${d.id}/evidence/`, form);
      expect(viaApi.status).toBe(400);
    }
    // A form with more fields than the form has is refused whole, never a 500.
    const flood = await admin.post(`/dashboard/disputes/${d.id}/evidence/`, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'x'])));
    expect(flood.status).toBeGreaterThanOrEqual(400);
    expect(flood.status).toBeLessThan(500);
    expect((await shop.get(`/dispute/${d.id}/`)).body).toEqual(before);
  });

  it('adds files from the page as the API adds them: listed, audited, dispute.updated, and submitted with the evidence', async () => {
    const d = await disputed();
    const { browser: admin } = await member(t, shop, 'admin');
    const page = await admin.get(`/dashboard/disputes/${d.id}/`);
    expect(page.text).toContain(`<form method="post" action="/dashboard/disputes/${d.id}/files/" enctype="multipart/form-data"`);
    expect(page.text).toContain('No files yet.');
    const added = await admin.postMultipart(`/dashboard/disputes/${d.id}/files/`, filesForm(pdf(), { ...PNG, type: 'image/png', name: 'paquete-año.png' }));
    expect(added.status, added.text.slice(0, 500)).toBe(303);
    expect(added.location).toBe(`/dashboard/disputes/${d.id}/?done=file`);
    const after = await admin.get(added.location!);
    expect(after.text).toContain('File added. It has not been submitted yet.');
    const rows = after.text.match(/<tr data-testid="dispute-file">.*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(2);
    expect(rows.join('')).toContain('delivery.pdf');
    expect(rows.join('')).toContain('paquete-año.png');
    // The same files through the API, on another dispute: kept alike.
    const other = await disputed();
    const viaApi = await shop.post(`/dispute/${other.id}/evidence/`, {
      files: [
        { name: 'delivery.pdf', content_type: 'application/pdf', data: PDF.bytes.toString('base64') },
        { name: 'paquete-año.png', content_type: 'image/png', data: PNG.bytes.toString('base64') },
      ],
    });
    expect(viaApi.status).toBe(200);
    const kept = (files: { name: string; content_type: string; size: number; sha256: string }[]) => files.map(({ name, content_type, size, sha256 }) => ({ name, content_type, size, sha256 })).sort((a, b) => a.name.localeCompare(b.name));
    const api = (await shop.get(`/dispute/${d.id}/`)).body;
    expect(kept(api.evidence.files)).toEqual(kept(viaApi.body.evidence.files));
    expect(kept(api.evidence.files)[0]).toMatchObject({ name: 'delivery.pdf', content_type: 'application/pdf', size: PDF.bytes.length });
    expect(await eventsOf(d.id)).toEqual(['dispute.created', 'dispute.updated']);
    const actions = await auditActions();
    expect(actions.filter((a) => a === 'dispute_file_added')).toHaveLength(2);
    const log = await (await member(t, shop, 'owner')).browser.get('/dashboard/audit/');
    expect(log.text).toContain(`Added the file delivery.pdf to dispute ${d.id}`);
    // Submitted, the dispute goes to the bank with its files, as through the API.
    expect((await admin.post(`/dashboard/disputes/${d.id}/submit/`, { confirm: 'yes' })).status).toBe(303);
    const submitted = (await shop.get(`/dispute/${d.id}/`)).body;
    expect(submitted.status).toBe('under_review');
    expect(submitted.evidence.files).toEqual(api.evidence.files);
    // No more files once submitted: the API's 409, nothing added.
    const late = await admin.postMultipart(`/dashboard/disputes/${d.id}/files/`, filesForm(pdf()));
    expect(late.status).toBe(409);
    expect(late.text).toContain('Nothing was changed: the dispute is under_review');
    expect((await shop.get(`/dispute/${d.id}/`)).body.evidence.files).toHaveLength(2);
  });

  it('refuses a wrong type, a file too large, too many, an empty file or none, in words on the form, as the API does; nothing saved, never a 500', async () => {
    const d = await disputed();
    const { browser: admin } = await member(t, shop, 'admin');
    const before = (await shop.get(`/dispute/${d.id}/`)).body;
    const audited = (await auditActions()).length;
    const refused = async (form: FormData, status: number, words: string) => {
      const res = await admin.postMultipart(`/dashboard/disputes/${d.id}/files/`, form);
      expect(res.status, res.text.slice(0, 300)).toBe(status);
      expect(res.text).toContain('No file was added.');
      expect(res.text).toMatch(/id="ev-file"[^>]*aria-invalid="true"/);
      expect(res.text).toContain(words);
      expect((await shop.get(`/dispute/${d.id}/`)).body).toEqual(before);
    };
    const wrongType = 'This file is not a PDF, PNG, JPEG or WebP file named as its type';
    // A PDF's name on a PNG's bytes; an SVG; a text file; a PDF named .png.
    await refused(filesForm({ bytes: PNG.bytes, name: 'receipt.pdf', type: 'application/pdf' }), 400, wrongType);
    await refused(filesForm({ bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), name: 'logo.svg', type: 'image/svg+xml' }), 400, wrongType);
    await refused(filesForm({ bytes: Buffer.from('just some text'), name: 'notes.txt', type: 'text/plain' }), 400, wrongType);
    await refused(filesForm({ bytes: PDF.bytes, name: 'receipt.png', type: 'image/png' }), 400, wrongType);
    await refused(filesForm({ bytes: Buffer.alloc(0), name: 'empty.pdf', type: 'application/pdf' }), 400, 'The file is empty.');
    await refused(new FormData(), 400, 'Choose a file to add.');
    await refused(filesForm(...Array.from({ length: 6 }, (_, i) => pdf(PDF.bytes, `part-${i}.pdf`))), 400, 'Too many files: at most 5 at a time');
    // One byte over the API's limit on a file, and on all the files together.
    await refused(filesForm(pdf(pdfOfSize(10 * MIB + 1))), 413, 'Too large: at most 10 MiB in all.');
    await refused(filesForm(pdf(pdfOfSize(5 * MIB), 'a.pdf'), pdf(pdfOfSize(5 * MIB + 1), 'b.pdf')), 413, 'Too large: at most 10 MiB in all.');
    // The API refuses the same.
    for (const [files, status] of [
      [[{ name: 'receipt.pdf', content_type: 'application/pdf', data: PNG.bytes.toString('base64') }], 400],
      [[{ name: 'empty.pdf', content_type: 'application/pdf', data: '' }], 400],
      [Array.from({ length: 6 }, (_, i) => ({ name: `part-${i}.pdf`, content_type: 'application/pdf', data: PDF.bytes.toString('base64') })), 400],
      [[{ name: 'a.pdf', content_type: 'application/pdf', data: pdfOfSize(5 * MIB).toString('base64') }, { name: 'b.pdf', content_type: 'application/pdf', data: pdfOfSize(5 * MIB + 1).toString('base64') }], 413],
    ] as const) {
      expect((await shop.post(`/dispute/${d.id}/evidence/`, { files })).status).toBe(status);
    }
    // Far past the limit: refused before it is read, in words, still no 500.
    const huge = await admin.postMultipart(`/dashboard/disputes/${d.id}/files/`, filesForm(pdf(pdfOfSize(12 * MIB))));
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('Too large: at most 10 MiB in all.');
    expect(huge.text).toContain(`href="/dashboard/disputes/${d.id}/"`);
    // Not multipart at all: no file, so the token is not read either.
    expect((await admin.post(`/dashboard/disputes/${d.id}/files/`, {})).status).toBe(403);
    expect((await shop.get(`/dispute/${d.id}/`)).body).toEqual(before);
    expect((await auditActions()).length).toBe(audited);
  });

  it('a viewer sees the dispute and its evidence, has no form, and every post is 403 with nothing changed', async () => {
    const d = await disputed();
    expect((await shop.post(`/dispute/${d.id}/evidence/`, { product_description: 'Saved through the API' })).status).toBe(200);
    const { browser: viewer } = await member(t, shop, 'viewer');
    const page = await viewer.get(`/dashboard/disputes/${d.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Saved through the API');
    expect(page.text).not.toContain('Save evidence');
    expect(page.text).not.toContain(`/dashboard/disputes/${d.id}/submit/`);
    expect(page.text).not.toContain(`/dashboard/disputes/${d.id}/files/`);
    const { browser: admin } = await member(t, shop, 'admin');
    const before = (await shop.get(`/dispute/${d.id}/`)).body;
    const audit = (await auditActions()).length;
    for (const [path, form] of [
      ['evidence', { product_description: 'Viewer text' }],
      ['submit', {}],
      ['submit', { confirm: 'yes' }],
      ['accept', { confirm: 'yes' }],
    ] as const) {
      expect((await viewer.post(`/dashboard/disputes/${d.id}/${path}/`, form)).status, path).toBe(403);
    }
    expect((await viewer.postMultipart(`/dashboard/disputes/${d.id}/files/`, filesForm(pdf()))).status).toBe(403);
    // An admin without the CSRF token: 403 too.
    expect((await admin.post(`/dashboard/disputes/${d.id}/accept/`, { confirm: 'yes' }, { csrf: null })).status).toBe(403);
    expect((await admin.postMultipart(`/dashboard/disputes/${d.id}/files/`, filesForm(pdf()), { csrf: null })).status).toBe(403);
    expect((await shop.get(`/dispute/${d.id}/`)).body).toEqual(before);
    expect((await auditActions()).length).toBe(audit);
  });

  it('another environment’s dispute, or no dispute, is a 404 for every route', async () => {
    const d = await disputed();
    const stranger = (await member(t, await t.newEnvironment('Stranger'), 'owner')).browser;
    for (const id of [d.id, '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e', 'not-an-id']) {
      expect((await stranger.get(`/dashboard/disputes/${id}/`)).status).toBe(404);
      for (const [path, form] of [
        ['evidence', { product_description: 'Stranger text' }],
        ['submit', { confirm: 'yes' }],
        ['accept', {}],
        ['accept', { confirm: 'yes' }],
      ] as const) {
        expect((await stranger.post(`/dashboard/disputes/${id}/${path}/`, form)).status, `${id} ${path}`).toBe(404);
      }
      expect((await stranger.postMultipart(`/dashboard/disputes/${id}/files/`, filesForm(pdf()))).status, `${id} files`).toBe(404);
    }
    expect((await shop.get(`/dispute/${d.id}/`)).body.evidence.files).toEqual([]);
    expect((await shop.get(`/dispute/${d.id}/`)).body.status).toBe('needs_response');
    expect((await shop.get(`/dispute/${d.id}/`)).body.evidence.product_description).toBeNull();
  });

  // Last: it moves the service's clock on.
  it('marks the deadline, in words, when it is near and when it has passed', async () => {
    const d = await disputed();
    // A new session each time: days pass between the looks.
    const deadline = async () => {
      const { browser } = await member(t, shop, 'viewer');
      return /data-testid="due">([^]*?)<\/dd>/.exec((await browser.get(`/dashboard/disputes/${d.id}/`)).text)![1];
    };
    expect(await deadline()).not.toContain('<strong>');
    clock.advance(new Date(d.evidence_due_by).getTime() - Date.now() - 86_400_000);
    expect(await deadline()).toContain('(less than 2 days left)');
    clock.advance(2 * 86_400_000);
    expect(await deadline()).toContain('(past the deadline)');
  });
});
