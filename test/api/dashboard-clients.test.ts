import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { clientBody, documentBody, IBANS } from './documents';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService } from './harness';

// Clients in the dashboard: the list and its search, one client with its IBANs and
// documents, and an admin's verdict on a document through the compliance review's own use
// case (the document's event, then the client's and its IBANs' compliance and theirs).

describe.each(ENGINES)('dashboard clients on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    // A database of its own: its jobs (runAll) take every due row they find, another file's subscriptions too.
    t = await startIsolatedService(engine);
    shop = await t.newEnvironment('Clients shop');
  });
  afterAll(() => t?.close());

  const created = async (path: string, body: unknown) => {
    const res = await shop.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const typesOf = async (id: string) => ((await shop.get(`/event/?object_id=${id}`)).body.results as { type: string }[]).map((e) => e.type).sort();

  it('lists clients and finds them by name or email, with LIKE characters taken literally', async () => {
    const env = await t.newEnvironment('Search shop');
    await env.post('/client/', clientBody({ name: 'Ada Lovelace', email: 'ada@analytical.example' }));
    await env.post('/client/', clientBody({ name: 'Charles Babbage', email: 'charles@engine.example' }));
    await env.post('/client/', clientBody({ name: '100% Cotton Ltd', email: null }));
    await env.post('/client/', clientBody({ name: 'ÁNGEL Ñúñez', email: null }));
    const { browser } = await member(t, env, 'viewer');
    const all = await browser.get('/dashboard/clients/');
    expect(all.status).toBe(200);
    for (const name of ['Ada Lovelace', 'Charles Babbage', '100% Cotton Ltd']) expect(all.text).toContain(name);
    const byName = await browser.get('/dashboard/clients/?q=lovelace');
    expect(byName.text).toContain('Ada Lovelace');
    expect(byName.text).not.toContain('Charles Babbage');
    const byEmail = await browser.get('/dashboard/clients/?q=ENGINE.example');
    expect(byEmail.text).toContain('Charles Babbage');
    expect(byEmail.text).not.toContain('Ada Lovelace');
    const percent = await browser.get('/dashboard/clients/?q=0%25');
    expect(percent.text).toContain('100% Cotton Ltd');
    expect(percent.text).not.toContain('Ada Lovelace');
    expect((await browser.get('/dashboard/clients/?q=_')).text).toContain('No clients match');
    // Capitals beyond A–Z fold too (SQLite's own lower() left them as they were).
    for (const q of ['ángel', 'ÑÚÑEZ', 'Ñúñez']) expect((await browser.get(`/dashboard/clients/?q=${encodeURIComponent(q)}`)).text, q).toContain('ÁNGEL Ñúñez');
    // A text that is no search is ignored rather than refused.
    expect((await browser.get('/dashboard/clients/?q=%01')).status).toBe(200);
    expect((await browser.get(`/dashboard/clients/?q=${'x'.repeat(5000)}`)).status).toBe(200);
  });

  it('approves a document: the client and its IBAN become enabled by compliance, with the events the review job emits', async () => {
    const client = await created('/client/', clientBody({ name: 'Grace Hopper', email: 'grace@navy.example' }));
    const iban = await created(`/client/${client.id}/iban/`, { iban: IBANS.ES, iban_id: 'main' });
    const doc = await created(`/client/${client.id}/document/`, documentBody({ type: 'identity_front', name: 'passport.pdf' }));
    const { browser: admin } = await member(t, shop, 'admin');
    const page = await admin.get(`/dashboard/clients/${client.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('ES •••• 1332');
    expect(page.text).not.toContain(IBANS.ES);
    expect(page.text).toContain('passport.pdf');
    expect(page.text).toContain('Pending');
    expect(page.text).toContain(`/dashboard/documents/${doc.id}/accept/`);
    expect(page.text).toContain('data-compliance="false"');

    const accepted = await admin.post(`/dashboard/documents/${doc.id}/accept/`, {});
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(303);
    expect(accepted.location).toBe(`/dashboard/clients/${client.id}/?done=accepted`);
    expect((await shop.get(`/client/${client.id}/document/${doc.id}/`)).body).toMatchObject({ status: 'accepted', status_reason: null, reviewed: expect.any(String) });
    expect((await shop.get(`/client/${client.id}/`)).body.enabled_by_compliance).toBe(true);
    expect((await shop.get(`/client/${client.id}/iban/${iban.id}/`)).body.enabled_by_compliance).toBe(true);
    expect(await typesOf(doc.id)).toEqual(['document.accepted']);
    expect(await typesOf(client.id)).toEqual(['client.compliance_changed', 'client.created']);
    expect(await typesOf(iban.id)).toEqual(['iban.compliance_changed', 'iban.created']);
    const after = await admin.get(accepted.location!);
    expect(after.text).toContain('Document accepted.');
    expect(after.text).toContain('data-compliance="true"');

    // Decided once: a second verdict (or the review job) finds nothing pending.
    expect((await admin.post(`/dashboard/documents/${doc.id}/reject/`, { reason: 'Too late' })).status).toBe(409);
    expect((await shop.get(`/client/${client.id}/document/${doc.id}/`)).body.status).toBe('accepted');
    const audit = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(audit.filter((a) => a.action === 'document_accepted').map((a) => JSON.parse(a.detail!))).toEqual([{ client: client.id, document: doc.id }]);
  });

  it('rejects a document with a reason; viewers cannot decide; CSRF is required; another environment gets 404', async () => {
    const client = await created('/client/', clientBody({ name: 'Alan Turing' }));
    const doc = await created(`/client/${client.id}/document/`, documentBody({ type: 'identity_front', name: 'blurry.pdf' }));
    const { browser: viewer } = await member(t, shop, 'viewer');
    const seen = await viewer.get(`/dashboard/clients/${client.id}/`);
    expect(seen.text).toContain('blurry.pdf');
    expect(seen.text).not.toContain('/accept/');
    expect((await viewer.post(`/dashboard/documents/${doc.id}/accept/`, {})).status).toBe(403);
    expect((await viewer.post(`/dashboard/documents/${doc.id}/reject/`, { reason: 'x' })).status).toBe(403);
    const { browser: admin } = await member(t, shop, 'admin');
    await admin.get(`/dashboard/clients/${client.id}/`);
    expect((await admin.post(`/dashboard/documents/${doc.id}/accept/`, {}, { csrf: null })).status).toBe(403);
    const other = await t.newEnvironment('Stranger');
    const { browser: stranger } = await member(t, other, 'owner');
    expect((await stranger.get(`/dashboard/clients/${client.id}/`)).status).toBe(404);
    expect((await stranger.post(`/dashboard/documents/${doc.id}/accept/`, {})).status).toBe(404);
    expect((await shop.get(`/client/${client.id}/document/${doc.id}/`)).body.status).toBe('pending');

    const noReason = await admin.post(`/dashboard/documents/${doc.id}/reject/`, { reason: '  ' });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('Give a reason');
    const rejected = await admin.post(`/dashboard/documents/${doc.id}/reject/`, { reason: 'The photo is blurred' });
    expect(rejected.status).toBe(303);
    expect((await shop.get(`/client/${client.id}/document/${doc.id}/`)).body).toMatchObject({ status: 'rejected', status_reason: 'The photo is blurred' });
    expect((await shop.get(`/client/${client.id}/`)).body.enabled_by_compliance).toBe(false);
    expect(await typesOf(doc.id)).toEqual(['document.rejected']);
    expect(await typesOf(client.id)).toEqual(['client.created']);
    const page = await admin.get(rejected.location!);
    expect(page.text).toContain('Rejected');
    expect(page.text).toContain('The photo is blurred');
    // The review job finds nothing left to decide.
    await t.service.jobs.runAll();
    expect((await shop.get(`/client/${client.id}/document/${doc.id}/`)).body.status).toBe('rejected');
  });
});
