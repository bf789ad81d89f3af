import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardText } from '../../server/dashboard/i18n';
import { auditOf } from '../../server/store/audit';
import { addPaymentNote, paymentNotes } from '../../server/store/payment-notes';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { paidTransaction, priced } from './pay';

// A payment's page (issue 47) on both engines: its events in words in the dashboard's
// languages, on the timeline and the Events list, each with its type beside it; and notes:
// admins and owners add one (CSRF-checked, validated, audited), shown on the timeline at
// its time with its author and escaped; viewers cannot; another environment's payment takes
// none and shows none; no note reaches the API or an event.

const MISSING = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
/** The timeline, in any language: the page's first history list (a sale's operations come after it). */
const timelineOf = (html: string) => /<ol class="history">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? '';

describe.each(ENGINES)('a payment’s events in words and its notes on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let owner: Browser;
  let admin: Browser;
  let adminEmail = '';
  let viewer: Browser;
  let stranger: Browser;
  let theirs: Client;
  let txId = '';
  const notesPath = () => `/dashboard/transactions/${txId}/notes/`;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Notes shop');
    owner = (await member(t, shop, 'owner')).browser;
    ({ browser: admin, email: adminEmail } = await member(t, shop, 'admin'));
    viewer = (await member(t, shop, 'viewer')).browser;
    theirs = await t.newEnvironment('Other shop');
    stranger = (await member(t, theirs, 'owner')).browser;
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 40));
    txId = transaction.id;
    expect((await shop.post(`/sale/${sale.id}/refund/`, { amount: 12.5, reason: 'requested_by_customer' })).status).toBe(200);
  });
  afterAll(() => t?.close());

  const db = () => t.service.deps.database.db;
  const notes = () => db().selectFrom('payment_notes').selectAll().where('transaction_id', '=', txId).orderBy('id').execute();
  const audited = async () => (await auditOf(db(), shop.keys.environment_id, { limit: 1000, offset: 0 })).filter((a) => a.action === 'note_added');
  const eventsOf = async (id: string) => (await shop.get(`/event/?object_id=${id}`)).body.results as { id: string; type: string }[];

  it('says each event in words, in each language, linked to its page with its type beside it, on the timeline and the Events list', async () => {
    const paid = (await eventsOf(txId)).find((e) => e.type === 'transaction.paid')!;
    const link = (words: string) => `<a href="/dashboard/events/${paid.id}/">${words} <code class="event-type">transaction.paid</code></a>`;
    const page = await viewer.get(`/dashboard/transactions/${txId}/`);
    const timeline = timelineOf(page.text);
    // With the money they moved, as the shop's language writes it: the payment's total, the refund's own amount.
    expect(timeline).toContain(link('Payment succeeded: €40.00'));
    expect(timeline).toMatch(/>Refund created: €12\.50 <code class="event-type">sale\.refunded<\/code><\/a>/);
    const total = (language: 'es' | 'fr') => dashboardText(language).money(4000, 'EUR');
    expect(timelineOf((await viewer.get(`/dashboard/transactions/${txId}/`, { 'accept-language': 'es' })).text)).toContain(link(`Pago completado: ${total('es')}`));
    expect(timelineOf((await viewer.get(`/dashboard/transactions/${txId}/`, { 'accept-language': 'fr' })).text)).toContain(link(`Paiement réussi : ${total('fr')}`));
    const listed = await viewer.get(`/dashboard/events/?object_id=${txId}`);
    expect(listed.text).toContain(link('Payment succeeded: €40.00'));
    // The type filter names each type in words too, keeping the type.
    expect(listed.text).toContain('<option value="dispute.created">Dispute opened (dispute.created)</option>');
  });

  it('an admin adds a note: on the timeline at its time with its author, escaped, audited; no event, nothing in the API', async () => {
    const eventsBefore = await eventsOf(txId);
    await admin.get(`/dashboard/transactions/${txId}/`);
    const body = '<script>alert(1)</script>\r\nCalled the customer & refunded €12.50';
    const added = await admin.post(notesPath(), { note: body });
    expect(added.status, added.text.slice(0, 300)).toBe(303);
    expect(added.location).toBe(`/dashboard/transactions/${txId}/?done=note`);
    const page = await admin.get(added.location!);
    expect(page.text).toContain('Note added to the timeline.');
    const timeline = timelineOf(page.text);
    // The textarea's CRLF kept as one line break; the markup as text.
    expect(timeline).toContain(`<span data-testid="timeline-note">Note by ${adminEmail}: <span class="note">&lt;script>alert(1)&lt;/script>\nCalled the customer &amp; refunded €12.50</span></span>`);
    expect(page.text).not.toContain('<script>alert(1)');
    // At its time: after the refund, which came before it.
    expect(timeline.indexOf('Refund created')).toBeLessThan(timeline.indexOf('Note by'));
    expect(timeline).toMatch(/<li><time datetime="[^"]+">[^<]+<\/time>: <span data-testid="timeline-note">Note by /);

    const [stored] = await notes();
    expect(stored).toMatchObject({ environment_id: shop.keys.environment_id, transaction_id: txId, body: '<script>alert(1)</script>\nCalled the customer & refunded €12.50' });
    const [audit] = await audited();
    expect(JSON.parse(audit!.detail!)).toEqual({ transaction: txId, note: stored!.id });
    expect(audit!.detail).not.toContain('Called the customer');
    // Only the dashboard has it: no event, not in the transaction, its sale or their events.
    expect(await eventsOf(txId)).toEqual(eventsBefore);
    for (const path of [`/transaction/${txId}/`, `/sale/?transaction_id=${txId}`, '/event/?page_size=100']) expect((await shop.get(path)).text).not.toContain('Called the customer');
    // An owner may too; the viewer reads both.
    await owner.get(`/dashboard/transactions/${txId}/`);
    expect((await owner.post(notesPath(), { note: 'Owner was here' })).status).toBe(303);
    const read = await viewer.get(`/dashboard/transactions/${txId}/`);
    expect(read.text).toContain('Called the customer &amp; refunded');
    expect(read.text).toContain('Owner was here');
  });

  it('refuses an empty, too long or control-character note, saying why in its form, keeping what was typed', async () => {
    await admin.get(`/dashboard/transactions/${txId}/`);
    const before = (await notes()).length;
    const cases: [Record<string, string>, string][] = [
      [{ note: '   \r\n ' }, 'Not added: the note is empty.'],
      [{}, 'Not added: the note is empty.'],
      [{ note: `long ${'x'.repeat(996)}` }, 'Not added: a note has at most 1,000 characters.'],
      [{ note: 'bell\u0007 and NUL\u0000' }, 'Not added: a note may hold line breaks, but no other control characters.'],
    ];
    for (const [form, reason] of cases) {
      const refused = await admin.post(notesPath(), form);
      expect(refused.status, reason).toBe(400);
      expect(refused.text).toContain(`<p class="field-error" id="note-error" data-testid="note-error">${reason}</p>`);
      expect(refused.text).toContain('aria-invalid="true" aria-describedby="note-hint note-error"');
    }
    expect((await admin.post(notesPath(), { note: `long ${'x'.repeat(996)}` })).text).toContain(`>long ${'x'.repeat(996)}</textarea>`);
    expect(await notes()).toHaveLength(before);
    // 1,000 characters with a line break typed as CRLF, counted once as a textarea counts it.
    expect((await admin.post(notesPath(), { note: `${'a'.repeat(499)}\r\n${'b'.repeat(500)}` })).status).toBe(303);
    expect((await notes()).at(-1)!.body).toHaveLength(1000);
  });

  it('a viewer sees no form and cannot add a note; posts without the session’s token are refused', async () => {
    const before = { notes: (await notes()).length, audited: (await audited()).length };
    const page = await viewer.get(`/dashboard/transactions/${txId}/`);
    expect(page.text).not.toContain(`action="${notesPath()}"`);
    expect((await admin.get(`/dashboard/transactions/${txId}/`)).text).toContain(`action="${notesPath()}"`);
    expect((await viewer.post(notesPath(), { note: 'From a viewer' })).status).toBe(403);
    expect((await admin.post(notesPath(), { note: 'No token' }, { csrf: null })).status).toBe(403);
    expect((await admin.post(notesPath(), { note: 'Forged' }, { csrf: 'forged' })).status).toBe(403);
    expect((await admin.post(notesPath(), { note: 'Elsewhere' }, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect({ notes: (await notes()).length, audited: (await audited()).length }).toEqual(before);
  });

  it('another environment’s payment takes no note and shows none, as if it did not exist', async () => {
    const before = (await notes()).length;
    await stranger.get('/dashboard/');
    const foreign = await stranger.post(notesPath(), { note: 'Not yours' });
    const missing = await stranger.post(`/dashboard/transactions/${MISSING}/notes/`, { note: 'Not yours' });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    // A refused note on a foreign payment is a 404 too, not its page with the form.
    expect((await stranger.post(notesPath(), { note: '' })).status).toBe(404);
    expect(await notes()).toHaveLength(before);
    expect((await stranger.get(`/dashboard/transactions/${txId}/`)).status).toBe(404);

    // Their own payment's note stays theirs.
    const mine = (await theirs.post('/transaction/', priced('EUR', 5))).body;
    await stranger.get(`/dashboard/transactions/${mine.id}/`);
    expect((await stranger.post(`/dashboard/transactions/${mine.id}/notes/`, { note: 'Their secret note' })).status).toBe(303);
    expect((await admin.get(`/dashboard/transactions/${txId}/`)).text).not.toContain('Their secret note');
    expect((await stranger.get(`/dashboard/transactions/${mine.id}/`)).text).toContain('Their secret note');
    // The store itself reads and writes through the environment.
    expect(await paymentNotes(db(), theirs.keys.environment_id, txId)).toEqual([]);
    expect((await paymentNotes(db(), shop.keys.environment_id, mine.id))).toEqual([]);
    const userId = (await db().selectFrom('payment_notes').select('author_user_id').where('transaction_id', '=', mine.id).executeTakeFirstOrThrow()).author_user_id;
    expect(await addPaymentNote(db(), { environmentId: theirs.keys.environment_id, transactionId: txId, authorUserId: userId, body: 'Through the store' }, new Date())).toBeUndefined();
    expect(await notes()).toHaveLength(before);
  });
});
