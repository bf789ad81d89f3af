import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import type { Verdict } from '../domain/compliance';
import { searchClients } from '../store/client-search';
import { recordVerdict } from '../clients/client-changes';
import { getClient, getDocument, listDocuments, listIbans } from '../store/clients';
import { FREE_TEXT, SINGLE_LINE } from '../../widget/fields/text';
import type { ActiveSession } from './accounts';
import { clientPage, clientsPage, clientUrl, MAX_CLIENT_SEARCH } from './client-pages';
import type { Kit } from './kit';

// /dashboard/clients/: the environment's clients, one client with its IBANs and documents,
// and an admin's verdict on a pending document. The verdict goes through the same store
// use case as the compliance review job (recordVerdict): the document's claim, its
// `document.accepted` / `document.rejected` event, and the client's and its IBANs'
// `enabled_by_compliance` with their events, in one transaction.

const PAGE_SIZE = 20;
/** One client page shows this many IBANs and documents (a client has a handful). */
const DETAIL_LIMIT = 100;
const ID = /^[0-9a-f-]{36}$/;
const listQuery = z.object({
  q: z.string().trim().max(MAX_CLIENT_SEARCH).regex(SINGLE_LINE).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1),
});
const rejectForm = z.object({ reason: z.string().trim().min(1).max(500).regex(FREE_TEXT) });
const doneQuery = z.object({ done: z.enum(['accepted', 'rejected']) });

export function clientRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;

  async function show(req: Request, res: Response, s: ActiveSession, id: string, status = 200, notice?: { text: string; error: boolean }) {
    const env = s.current.environment_id;
    const client = ID.test(id) ? await getClient(db, env, id) : undefined;
    if (!client) return notFound(req, res);
    const ibans = (await listIbans(db, env, id, {}, { page: 1, page_size: DETAIL_LIMIT })).rows;
    const docs = (await listDocuments(db, env, id, {}, { page: 1, page_size: DETAIL_LIMIT })).rows;
    send(res, status, clientPage({ text: textOf(req), session: s, client, ibans, docs, notice }));
  }

  router.get('/clients/', page('viewer', async (req, res, s) => {
    const { q, page: pageNo } = listQuery.parse(req.query);
    const { count, rows } = await searchClients(db, s.current.environment_id, q, { page: pageNo, page_size: PAGE_SIZE });
    send(res, 200, clientsPage({ text: textOf(req), session: s, q: q ?? '', rows, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) }));
  }));

  router.get('/clients/:id/', page('viewer', async (req, res, s) => {
    const done = doneQuery.safeParse(req.query);
    const notice = done.success ? { text: textOf(req).t(`cl.done.${done.data.done}`), error: false } : undefined;
    await show(req, res, s, String(req.params.id), 200, notice);
  }));

  for (const verdictName of ['accept', 'reject'] as const) {
    router.post(`/documents/:id/${verdictName}/`, forms, action('admin', async (req, res, s) => {
      const id = String(req.params.id);
      const doc = ID.test(id) ? await getDocument(db, s.current.environment_id, null, id) : undefined;
      if (!doc) return notFound(req, res);
      const text = textOf(req);
      let verdict: Verdict = { status: 'accepted', reason: null };
      if (verdictName === 'reject') {
        const form = rejectForm.safeParse(req.body);
        if (!form.success) return show(req, res, s, doc.client_ref, 400, { text: text.t('cl.reasonNeeded'), error: true });
        verdict = { status: 'rejected', reason: form.data.reason };
      }
      // The same claim as the job's: a document already decided (by the job or another user) is not decided again.
      if (!(await recordVerdict(db, doc, verdict, deps.now(), deps.outbox))) {
        return show(req, res, s, doc.client_ref, 409, { text: text.t('cl.alreadyReviewed'), error: true });
      }
      await audit(req, s, `document_${verdict.status}`, { client: doc.client_ref, document: doc.id });
      res.redirect(303, `${clientUrl(doc.client_ref)}?done=${verdict.status}`);
    }));
  }
}
