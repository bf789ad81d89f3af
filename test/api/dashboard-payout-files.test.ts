import { beforeAll, describe, expect, it } from 'vitest';
import { createGateways } from '../../server/payments/registry';
import { sandboxGateways } from '../../server/payments/sandbox';
import { auditOf } from '../../server/store/audit';
import { createEnvironment } from '../../server/store/environments';
import { type BankLine, statementXml } from '../unit/sepa-bank';
import { type Browser, member } from './dashboard';
import { Client, ENGINES } from './harness';
import { checkLedger, useOwnService } from './ledger';
import { acquirer, DEBTOR, debits, livePayouts, SEPA } from './sepa-payouts';

// The dashboard's payout files (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files,
// docs/dashboard.md#payout-files) over real HTTP on both engines, an owner of a live
// environment doing with forms what the API does: the list, a file's first download
// sending its payouts and a later one warning, a camt.053 uploaded twice paying once with
// its unmatched line listed, a booked file refusing to be cancelled, a payout marked paid
// by hand with a reason (once, audited), a cancelled file's payouts back to pending and
// its download refused; bad uploads and forms refused; other roles and a missing CSRF
// token refused with nothing changed. What each did is read back through the API.

/** The readable text of an HTML page. */
const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const statementForm = (xml: string) => {
  const form = new FormData();
  form.append('file', new Blob([xml], { type: 'application/xml' }), 'statement.xml');
  return form;
};

describe.each(ENGINES)('dashboard payout files on %s', (engine) => {
  const svc = useOwnService(engine, { gateways: createGateways([...sandboxGateways(), acquirer()]), env: SEPA });
  let live: Client;
  let owner: Browser;
  const db = () => svc.t.service.deps.database.db;
  const runFiles = () => svc.t.service.jobs.runOnce('payout-files');
  const { payout, fileOf } = livePayouts(
    () => svc.t,
    () => live,
  );
  const statusOf = async (id: string) => (await live.get(`/transfer/${id}/`)).body.status as string;
  const transferEvents = async (id: string) => ((await live.get(`/event/?object_id=${id}&page_size=100`)).body.results as { type: string }[]).map((e) => e.type).filter((t) => t.startsWith('transfer.')).reverse();
  const audit = async (action: string) => (await auditOf(db(), live.keys.environment_id, { limit: 1000, offset: 0 })).filter((a) => a.action === action).map((a) => ({ ...a, detail: JSON.parse(a.detail ?? 'null') as unknown }));
  const filePage = (id: string) => `/dashboard/payout-files/${id}/`;

  beforeAll(async () => {
    live = new Client(svc.t.url, await createEnvironment(db(), { name: 'Live payouts shop', mode: 'live', now: new Date() }));
    owner = (await member(svc.t, live, 'owner')).browser;
  });

  it('lists a file, downloads it (the first download sends it, a later one warns) and imports its statement twice: paid once, its unmatched line listed', async () => {
    const a = await payout(4);
    expect(await runFiles()).toBe(1);
    const file = await fileOf(a.id);
    const list = await owner.get('/dashboard/payout-files/');
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="${filePage(file.id)}"`);
    expect(textOf(list.text)).toContain('Waiting to be downloaded for your bank');

    const first = await owner.post(`${filePage(file.id)}xml/`, {});
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(first.headers.get('content-disposition')).toBe(`attachment; filename="payout-file-${file.message_id}.xml"`);
    expect(first.text).toContain(`<MsgId>${file.message_id}</MsgId>`);
    expect(await statusOf(a.id)).toBe('in_transit');
    const page = await owner.get(filePage(file.id));
    expect(textOf(page.text)).toContain('Downloaded 1 times already. Uploading this file to your bank again pays every payout in it twice.');
    const again = await owner.post(`${filePage(file.id)}xml/`, {});
    expect(again.text).toBe(first.text);
    expect((await live.get(`/payout_file/${file.id}/`)).body).toMatchObject({ state: 'downloaded', download_count: 2 });
    expect((await audit('payout_file_downloaded')).map((e) => e.detail)).toEqual(expect.arrayContaining([{ file: file.id, downloads: '1' }, { file: file.id, downloads: '2' }]));

    // The file's debit, and a credit that is nobody's payout.
    const stranger: BankLine = { direction: 'CRDT', amount: 1234n, transactions: [] };
    const xml = statementXml({ iban: DEBTOR, reportId: `DASH-${file.message_id}`, lines: [...debits(await fileOf(a.id)), stranger] });
    const imported = await owner.postMultipart('/dashboard/payout-files/statement/', statementForm(xml));
    expect(imported.status, imported.text.slice(0, 500)).toBe(200);
    const shown = textOf(imported.text);
    expect(shown).toContain('camt.053 imported: 1 payout changes; reports imported before and skipped: 0.');
    expect(shown).toContain(`Payout ${a.id}: In a payout file sent to your bank → Paid`);
    expect(imported.text.match(/<table data-testid="unmatched">[\s\S]*?<\/table>/)?.[0]).toMatch(/Credit[\s\S]*€12\.34/);
    const twice = await owner.postMultipart('/dashboard/payout-files/statement/', statementForm(xml));
    expect(textOf(twice.text)).toContain('camt.053 imported: 0 payout changes; reports imported before and skipped: 1.');
    expect(await statusOf(a.id)).toBe('paid');
    expect(await transferEvents(a.id)).toEqual(['transfer.in_transit', 'transfer.paid']);
    // Kept for a person: the list shows the latest statements' unmatched lines.
    expect((await owner.get('/dashboard/payout-files/')).text.match(/<table data-testid="unmatched">[\s\S]*?<\/table>/)?.[0]).toMatch(/Credit[\s\S]*€12\.34/);

    // Booked: cancelling is asked once more, then refused as the API refuses it.
    expect(textOf((await owner.post(`${filePage(file.id)}cancel/`, {})).text)).toContain('Cancel this payout file?');
    const refused = await owner.post(`${filePage(file.id)}cancel/`, { confirm: 'yes' });
    expect(refused.status).toBe(409);
    expect(textOf(refused.text)).toContain('Nothing was changed: the bank has booked this file');
    expect((await live.get(`/payout_file/${file.id}/`)).body.state).toBe('booked');
    await checkLedger(db(), live.keys.environment_id);
  });

  it('marks a payout in transit paid by hand with a reason, once, audited; refuses it without a reason or for a payout not in transit', async () => {
    const p = await payout(3);
    await runFiles();
    const file = await fileOf(p.id);
    // Pending (the file not downloaded yet): the API's rule refuses it.
    const early = await owner.post(`${filePage(file.id)}paid/`, { payout: p.id, reason: 'Seen on the bank website' });
    expect(early.status).toBe(409);
    expect(textOf(early.text)).toContain('a payout that is pending cannot be marked paid');
    await owner.post(`${filePage(file.id)}xml/`, {});
    expect((await owner.post(`${filePage(file.id)}paid/`, { payout: p.id, reason: '   ' })).status).toBe(400);
    expect((await owner.post(`${filePage(file.id)}paid/`, { payout: 'not-an-id', reason: 'x' })).status).toBe(400);
    expect((await owner.post(`${filePage(file.id)}paid/`, { payout: crypto.randomUUID(), reason: 'x' })).status).toBe(404);
    expect(await statusOf(p.id)).toBe('in_transit');

    const marked = await owner.post(`${filePage(file.id)}paid/`, { payout: p.id, reason: 'Seen on the bank website' });
    expect(marked.status).toBe(303);
    expect(marked.location).toBe(`${filePage(file.id)}?done=paid`);
    expect(textOf((await owner.get(marked.location!)).text)).toContain('The payout was marked paid.');
    expect((await owner.post(`${filePage(file.id)}paid/`, { payout: p.id, reason: 'Again' })).status).toBe(303);
    expect(await statusOf(p.id)).toBe('paid');
    expect(await transferEvents(p.id)).toEqual(['transfer.in_transit', 'transfer.paid']);
    expect((await audit('payout_marked_paid')).map((e) => e.detail)).toEqual([{ file: file.id, payout: p.id, reason: 'Seen on the bank website' }]);
    // The bank paid from it: it can no longer be cancelled.
    expect((await live.get(`/payout_file/${file.id}/`)).body.state).toBe('booked');
    await checkLedger(db(), live.keys.environment_id);
  });

  it('cancels a file after asking once more: its payouts back to pending, its download refused', async () => {
    const p = await payout(2);
    await runFiles();
    const file = await fileOf(p.id);
    await owner.post(`${filePage(file.id)}xml/`, {});
    const cancelled = await owner.post(`${filePage(file.id)}cancel/`, { confirm: 'yes' });
    expect(cancelled.status).toBe(303);
    expect(await statusOf(p.id)).toBe('pending');
    expect(await transferEvents(p.id)).toEqual(['transfer.in_transit', 'transfer.pending']);
    expect(textOf((await owner.get(filePage(file.id))).text)).toContain('Never upload it to your bank.');
    const download = await owner.post(`${filePage(file.id)}xml/`, {});
    expect(download.status).toBe(409);
    expect(download.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await audit('payout_file_cancelled')).map((e) => e.detail)).toContainEqual({ file: file.id, pending: '1' });
  });

  it('refuses bad statements, other roles, a missing CSRF token and another environment, changing nothing', async () => {
    const p = await payout(1);
    await runFiles();
    const file = await fileOf(p.id);
    const xxe = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>';
    const refused = await owner.postMultipart('/dashboard/payout-files/statement/', statementForm(xxe));
    expect(refused.status).toBe(400);
    expect(textOf(refused.text)).toContain('Nothing was imported:');
    expect((await owner.postMultipart('/dashboard/payout-files/statement/', new FormData())).status).toBe(400);
    const otherAccount = await owner.postMultipart('/dashboard/payout-files/statement/', statementForm(statementXml({ iban: 'ES9121000418450200051332', reportId: 'OTHER-ACCOUNT', lines: [] })));
    expect(otherAccount.status).toBe(409);

    for (const role of ['admin', 'viewer'] as const) {
      const { browser } = await member(svc.t, live, role);
      expect((await browser.get('/dashboard/payout-files/')).status).toBe(403);
      expect((await browser.get(filePage(file.id))).status).toBe(403);
      expect((await browser.post(`${filePage(file.id)}xml/`, {})).status).toBe(403);
      expect((await browser.post(`${filePage(file.id)}cancel/`, { confirm: 'yes' })).status).toBe(403);
    }
    expect((await owner.post(`${filePage(file.id)}xml/`, {}, { csrf: null })).status).toBe(403);
    expect((await owner.postMultipart('/dashboard/payout-files/statement/', statementForm('<Document/>'), { csrf: null })).status).toBe(403);
    const other = await svc.t.newEnvironment('Other shop');
    const { browser: theirs } = await member(svc.t, other, 'owner');
    expect((await theirs.get(filePage(file.id))).status).toBe(404);
    expect((await theirs.post(`${filePage(file.id)}xml/`, {})).status).toBe(404);
    expect((await live.get(`/payout_file/${file.id}/`)).body).toMatchObject({ state: 'written', download_count: 0 });
    expect(await statusOf(p.id)).toBe('pending');
    expect((await owner.get('/dashboard/payout-files/?page=nonsense')).status).toBe(200);
    expect((await owner.get('/dashboard/payout-files/not-an-id/')).status).toBe(404);
  });
});
