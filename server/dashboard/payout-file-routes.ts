import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { BANK_FILE_MAX_BYTES, importBankFile } from '../payments/bank-files';
import { cancelPayoutFile, downloadFile } from '../payments/payout-file-actions';
import { markPayoutPaid } from '../payments/payout-mark-paid';
import { fileItems, getFile, listFiles, listUnmatchedLines } from '../store/payout-files';
import type { ActiveSession } from './accounts';
import { clientIp } from './http';
import { messagePage } from './account-pages';
import type { Kit } from './kit';
import type { ActionNotice } from './list-parts';
import { cancelConfirmPage, payoutFilePage, payoutFilesPage, payoutFileUrl, statementResultPage } from './payout-file-pages';
import { multipartForm } from './upload';

// /dashboard/payout-files/ (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files), for
// owners: the environment's payout files, one file with its payouts, its download, its
// cancel, a payout marked paid by hand, and a bank statement's upload. Each goes through
// the use case the API calls (payments/payout-file-actions.ts, bank-files.ts; marking paid
// through payout-mark-paid.ts, which keeps the reason in the audit log), so the states,
// their events and the money are the API's.
// The download is a POST with the CSRF token: its first time sends the file's payouts, so
// no link a page elsewhere could make may do it. Each action is in the audit log.

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const BASE = '/dashboard/payout-files/';
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });
const doneQuery = z.object({ done: z.enum(['cancelled', 'paid']) });
const cancelForm = z.object({ confirm: z.literal('yes').optional() });
const paidForm = z.object({ payout: z.uuid(), reason: z.string().trim().min(1).max(500) });

export function payoutFileRoutes(router: IRouter, kit: Kit): void {
  const { db, page, send, textOf, notFound } = kit;
  const find = (s: ActiveSession, id: string) => (ID.test(id) ? getFile(db, s.current.environment_id, id) : Promise.resolve(undefined));
  /** A file's page; after an action, what it came to. */
  const show = async (req: Request, res: Response, s: ActiveSession, status = 200, notice?: ActionNotice) => {
    const file = await find(s, String(req.params.id));
    if (!file) return notFound(req, res);
    const done = doneQuery.safeParse(req.query);
    const shown = notice ?? (done.success ? { text: textOf(req).t(`pf.done.${done.data.done}`), error: false } : undefined);
    send(res, status, payoutFilePage({ text: textOf(req), session: s, file, items: await fileItems(db, file.id), notice: shown }));
  };

  router.get('/payout-files/', page('owner', async (req, res, s) => {
    const q = pageQuery.parse(req.query);
    const env = s.current.environment_id;
    const [{ count, rows }, lines] = await Promise.all([listFiles(db, env, {}, { page: q.page, page_size: PAGE_SIZE }), listUnmatchedLines(db, env, { page: 1, page_size: PAGE_SIZE })]);
    const enabled = Boolean(kit.deps.payouts.forMode(true)?.files);
    // The newest statements' lines that matched no payout, as an import listed them.
    const unmatched = lines.rows.map((l) => ({ report: l.report_id, entry: l.entry, reference: l.reference ?? undefined, direction: l.direction, amount: l.amount, why: l.why }));
    send(res, 200, payoutFilesPage({ text: textOf(req), session: s, rows, page: q.page, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), enabled, unmatched }));
  }));

  router.get('/payout-files/:id/', page('owner', (req, res, s) => show(req, res, s)));

  fileActions(router, kit, { find, show });
  statementRoute(router, kit);
}

type Helpers = {
  find: (s: ActiveSession, id: string) => ReturnType<typeof getFile>;
  show: (req: Request, res: Response, s: ActiveSession, status?: number, notice?: ActionNotice) => Promise<void>;
};

/** Download, cancel (asked once more) and a payout marked paid: each the API's use case, audited. */
function fileActions(router: IRouter, kit: Kit, h: Helpers): void {
  const { db, deps, forms, action, send, textOf, notFound, audit, actor } = kit;
  const refused = (req: Request, res: Response, s: ActiveSession, reason: string) => h.show(req, res, s, 409, { text: textOf(req).t('pf.refused', { reason }), error: true });

  router.post('/payout-files/:id/xml/', forms, action('owner', async (req, res, s) => {
    const id = String(req.params.id);
    if (!(await h.find(s, id))) return notFound(req, res);
    const done = await downloadFile(deps, s.current.environment_id, id);
    if (!done.ok) return done.missing ? notFound(req, res) : refused(req, res, s, done.reason);
    await audit(req, s, 'payout_file_downloaded', { file: id, downloads: String(done.file.download_count) });
    res.status(200).set({ 'Content-Type': 'application/xml; charset=utf-8', 'Content-Disposition': `attachment; filename="payout-file-${done.file.message_id}.xml"` });
    res.send(done.file.xml);
  }));

  router.post('/payout-files/:id/cancel/', forms, action('owner', async (req, res, s) => {
    const file = await h.find(s, String(req.params.id));
    if (!file) return notFound(req, res);
    const form = cancelForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, cancelConfirmPage({ text: textOf(req), session: s, file }));
    const done = await cancelPayoutFile(deps, db, s.current.environment_id, file.id, actor(req, s));
    if (!done.ok) return done.missing ? notFound(req, res) : refused(req, res, s, done.reason);
    res.redirect(303, `${payoutFileUrl(file.id)}?done=cancelled`);
  }));

  router.post('/payout-files/:id/paid/', forms, action('owner', async (req, res, s) => {
    const file = await h.find(s, String(req.params.id));
    if (!file) return notFound(req, res);
    const form = paidForm.safeParse(req.body);
    if (!form.success) return h.show(req, res, s, 400, { text: textOf(req).t('pf.reasonMissing'), error: true });
    const by = { reason: form.data.reason, userId: s.userId, email: s.email, ip: clientIp(req) };
    const done = await markPayoutPaid(deps, db, s.current.environment_id, file.id, form.data.payout, by);
    if (!done.ok) return done.missing ? notFound(req, res) : refused(req, res, s, done.reason);
    res.redirect(303, `${payoutFileUrl(file.id)}?done=paid`);
  }));
}

/** A statement or status report uploaded: imported as POST /v1/bank_statement/ imports it. */
function statementRoute(router: IRouter, kit: Kit): void {
  const { db, deps, action, send, textOf, audit } = kit;
  const tooLarge = (req: Request, res: Response) => {
    const text = textOf(req);
    send(res, 413, messagePage(text, text.t('pf.statementTitle'), text.t('pf.tooLarge', { mib: BANK_FILE_MAX_BYTES / 1024 / 1024 }), { href: BASE, label: text.t('pf.title') }));
  };
  router.post('/payout-files/statement/', multipartForm('file', { fileBytes: BANK_FILE_MAX_BYTES }, tooLarge), action('owner', async (req, res, s) => {
    const upload = req.uploads?.[0];
    const text = textOf(req);
    const answer = (status: number, refused: string) => send(res, status, statementResultPage({ text, session: s, refused }));
    if (!upload || upload.bytes.length === 0) return answer(400, text.t('pf.noFile'));
    if (upload.tooLarge) return answer(413, text.t('pf.tooLarge', { mib: BANK_FILE_MAX_BYTES / 1024 / 1024 }));
    const done = await importBankFile(deps, db, s.current.environment_id, { name: 'dashboard upload', bytes: upload.bytes });
    if (!done.ok) return answer(done.status === 'invalid' ? 400 : 409, done.reason);
    await audit(req, s, 'bank_statement_imported', { kind: done.result.kind, changes: String(done.result.changes.length), unmatched: String(done.result.unmatched.length) });
    send(res, 200, statementResultPage({ text, session: s, result: done.result }));
  }));
}
