import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { reviewDocuments } from '../../server/jobs/compliance-review';
import { clientBody, documentBody, IBANS } from './documents';
import { type Client, ENGINES, type TestService } from './harness';
import type { Receiver } from './receiver';
import { startWebhookService } from './webhook-service';

// The compliance review end to end: documents uploaded over HTTP, the review run by hand
// (runAll: the review, then delivery), the client's and its IBANs' state read back, and the
// events received by a webhook endpoint and verified with the `standardwebhooks` package.

describe.each(ENGINES)('compliance review on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let hook: Receiver;
  /** One round of every job: the review, then delivery of what it told. */
  const run = () => t.service.jobs.runAll();

  let stop: () => Promise<void>;
  beforeAll(async () => {
    // runAll() also reviews every pending document of its database.
    ({ t, hook, close: stop } = await startWebhookService(engine));
  });
  afterAll(() => stop());
  beforeEach(async () => {
    api = await t.newEnvironment();
    await run();
    hook.received.length = 0;
  });

  const created = async (path: string, body: unknown) => {
    const res = await api.post(path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  const upload = (clientId: string, over: Parameters<typeof documentBody>[0] = {}) =>
    created(`/client/${clientId}/document/`, documentBody(over));
  /** The events received, verified, as "type object-id", sorted (one transaction's events share a moment). */
  const verified = () => {
    const wh = new Webhook(api.keys.webhook_secret);
    return hook.received
      .map((r) => wh.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { id: string } })
      .map((p) => `${p.type} ${p.data.id}`)
      .sort();
  };
  const events = (...list: [string, string][]) => list.map(([type, id]) => `${type} ${id}`).sort();

  it('an accepted identity document enables the client, then its IBANs, each change told once', async () => {
    const client = await created('/client/', clientBody({ notify_url: hook.url }));
    const iban = await created(`/client/${client.id}/iban/`, { iban: IBANS.ES, notify_url: hook.url });
    const doc = await upload(client.id, { type: 'identity_front', name: 'passport.pdf' });
    expect(doc.status).toBe('pending');

    expect(await run()).toMatchObject({ [JOB_NAMES.compliance]: 1 });
    const reviewed = (await api.get(`/client/${client.id}/document/${doc.id}/`)).body;
    expect(reviewed).toMatchObject({ status: 'accepted', status_reason: null, reviewed: expect.any(String) });
    expect((await api.get(`/client/${client.id}/`)).body.enabled_by_compliance).toBe(true);
    expect((await api.get(`/client/${client.id}/iban/${iban.id}/`)).body.enabled_by_compliance).toBe(true);
    expect(verified()).toEqual(events(
      ['client.created', client.id],
      ['iban.created', iban.id],
      ['document.accepted', doc.id],
      ['client.compliance_changed', client.id],
      ['iban.compliance_changed', iban.id],
    ));
    const changed = hook.received.map((r) => r.payload).find((p) => p.type === 'iban.compliance_changed')!;
    expect(changed.data).toEqual((await api.get(`/client/${client.id}/iban/${iban.id}/`)).body);

    // An IBAN added later starts enabled, as its client is; nothing more to review.
    const later = await created(`/client/${client.id}/iban/`, { iban: IBANS.DE });
    expect(later.enabled_by_compliance).toBe(true);
    expect(await run()).toMatchObject({ [JOB_NAMES.compliance]: 0 });
    // And the events API lists them.
    const types = (await api.get(`/event/?object_id=${client.id}`)).body.results.map((e: { type: string }) => e.type);
    expect(types.sort()).toEqual(['client.compliance_changed', 'client.created']);
  });

  it('a rejected document says why and keeps the client disabled', async () => {
    const client = await created('/client/', clientBody({ notify_url: hook.url }));
    const doc = await upload(client.id, { type: 'identity_front', name: 'Rejected-scan.pdf' });
    await run();
    const reviewed = (await api.get(`/client/${client.id}/document/${doc.id}/`)).body;
    expect(reviewed).toMatchObject({ status: 'rejected', status_reason: expect.stringContaining('reject') });
    expect((await api.get(`/client/${client.id}/`)).body.enabled_by_compliance).toBe(false);
    expect(verified()).toEqual(events(
      ['client.created', client.id],
      ['document.rejected', doc.id],
    ));
    expect((await api.get(`/client/${client.id}/document/?status=rejected`)).body.count).toBe(1);
  });

  it('a company needs its registration too; becoming a company without one disables the client', async () => {
    const company = await created('/client/', clientBody({ client_type: 'company', name: 'Acme SL' }));
    await upload(company.id, { type: 'identity_front' });
    await run();
    expect((await api.get(`/client/${company.id}/`)).body.enabled_by_compliance).toBe(false);
    await upload(company.id, { type: 'company_registration' });
    await run();
    expect((await api.get(`/client/${company.id}/`)).body.enabled_by_compliance).toBe(true);

    const person = await created('/client/', clientBody({ notify_url: hook.url }));
    const iban = await created(`/client/${person.id}/iban/`, { iban: IBANS.GB });
    await upload(person.id, { type: 'identity_back' });
    await run();
    expect((await api.get(`/client/${person.id}/`)).body.enabled_by_compliance).toBe(true);
    hook.received.length = 0;
    const patched = await api.patch(`/client/${person.id}/`, { client_type: 'company' });
    expect(patched.body.enabled_by_compliance).toBe(false);
    expect((await api.get(`/client/${person.id}/iban/${iban.id}/`)).body.enabled_by_compliance).toBe(false);
    await run();
    expect(verified()).toEqual(events(
      ['client.updated', person.id],
      ['client.compliance_changed', person.id],
    ));
  });

  it('two reviewers racing over the same documents decide each one once', async () => {
    const client = await created('/client/', clientBody({ notify_url: hook.url }));
    const docs = [];
    for (let i = 0; i < 12; i++) docs.push(await upload(client.id, { type: i % 2 ? 'identity_front' : 'other', name: i % 3 ? `id-${i}.pdf` : `reject-${i}.pdf` }));
    const { database, outbox, log } = t.service.deps;
    const reviewer = { db: database.db, outbox, now: () => new Date(), log };
    const passes = await Promise.all([reviewDocuments(reviewer), reviewDocuments(reviewer), reviewDocuments(reviewer)]);
    expect(passes.reduce((a, b) => a + b, 0)).toBe(docs.length);
    const listed = (await api.get('/event/?page_size=100')).body.results as { type: string; data: { id: string } }[];
    for (const doc of docs) {
      expect(listed.filter((e) => e.type.startsWith('document.') && e.data.id === doc.id), doc.id).toHaveLength(1);
    }
    expect(listed.filter((e) => e.type === 'client.compliance_changed')).toHaveLength(1);
  });
});
