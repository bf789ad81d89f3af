import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { AWAITING_RESPONSE, EVIDENCE_TEXT_FIELDS } from '../domain/disputes';
import { disputedPaymentsOf, disputesAwaitingResponse, getDispute, listDisputes, type StoredDispute } from '../store/disputes';
import type { ActiveSession } from './accounts';
import { addDisputeEvidence, answerDisputeOf } from '../commands/dispute-answers';
import type { FileError } from './dispute-file-form';
import { disputeFileRoute } from './dispute-file-routes';
import { type Errors, type EvidenceValues, evidenceInput, postedEvidence, savedEvidence } from './dispute-form';
import { type Answer, confirmAnswerPage, disputePage, disputeUrl } from './dispute-page';
import { disputesPage } from './dispute-pages';
import type { Kit } from './kit';
import type { ActionNotice } from './list-parts';
import { ID, txUrl } from './money-routes';

// /dashboard/disputes/: the environment's disputes, those needing a response first with
// their deadlines (docs/disputes.md), and a dispute's page. Viewers see; admins and owners
// save evidence, submit it or accept the dispute through the API's own use cases
// (commands/dispute-answers.ts), so the fields, files, limits, state rules, events and
// refusals are the API's. Submitting and accepting cannot be undone: each asks once more.

const PAGE_SIZE = 20;
/** The most awaiting disputes shown at once; more than this many open at a time is a matter for the API. */
const AWAITING_SHOWN = 100;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });
const doneQuery = z.object({ done: z.enum(['evidence', 'file', 'submit', 'accept']) });
const confirmForm = z.object({ confirm: z.literal('yes').optional() });
/** The audit log's action for each answer. */
const AUDITED = { evidence: 'dispute_evidence_saved', submit: 'dispute_submitted', accept: 'dispute_accepted' } as const;

export function disputeRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;
  // Every evidence field at once, each up to the API's 20,000 characters (so that a longer
  // one reaches the API's rule and is shown on its field rather than refused whole).
  const evidenceForms = express.urlencoded({ extended: false, limit: '2mb', parameterLimit: EVIDENCE_TEXT_FIELDS.length + 4 });
  const find = (s: ActiveSession, id: string) => (ID.test(id) ? getDispute(db, s.current.environment_id, id) : Promise.resolve(undefined));

  router.get('/disputes/', page('viewer', async (req, res, s) => {
    const { page: pageNo } = pageQuery.parse(req.query);
    const environmentId = s.current.environment_id;
    const awaiting = await disputesAwaitingResponse(db, environmentId, AWAITING_SHOWN);
    const { count, items } = await listDisputes(db, environmentId, {}, { page: pageNo, page_size: PAGE_SIZE });
    const all = items.map((d) => d.row);
    const payments = await disputedPaymentsOf(db, environmentId, [...awaiting, ...all].map((d) => d.sale_id));
    send(res, 200, disputesPage({ text: textOf(req), session: s, awaiting, all, payments, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), now: deps.now() }));
  }));

  /** The dispute's page; after a refused answer, with what was posted and why. */
  async function show(req: Request, res: Response, s: ActiveSession, dispute: StoredDispute, status: number, refused?: { values: EvidenceValues; errors: Errors; fileError?: FileError; notice?: ActionNotice }) {
    const text = textOf(req);
    const payment = (await disputedPaymentsOf(db, s.current.environment_id, [dispute.row.sale_id])).get(dispute.row.sale_id);
    const done = doneQuery.safeParse(req.query);
    const notice = refused ? refused.notice : done.success ? { text: text.t(`dsp.done.${done.data.done}`), error: false } : undefined;
    const page = { dispute, payment, transactionUrl: payment?.transaction_id ? txUrl(payment.transaction_id) : null, now: deps.now() };
    const values = refused?.values ?? savedEvidence(dispute.evidence);
    send(res, status, disputePage({ text, session: s, ...page, values, errors: refused?.errors ?? [], fileError: refused?.fileError, notice }));
  }

  const conflict = (req: Request, status: string): ActionNotice => ({ text: textOf(req).t('dsp.conflict', { status }), error: true });

  router.get('/disputes/:id/', page('viewer', async (req, res, s) => {
    const dispute = await find(s, String(req.params.id));
    if (!dispute) return notFound(req, res);
    await show(req, res, s, dispute, 200);
  }));

  router.post('/disputes/:id/evidence/', evidenceForms, action('admin', async (req, res, s) => {
    const dispute = await find(s, String(req.params.id));
    if (!dispute) return notFound(req, res);
    const values = postedEvidence(req.body ?? {});
    const answer = await addDisputeEvidence(deps, s.current.environment_id, dispute.row.id, evidenceInput(values, dispute.evidence));
    if (!answer) return notFound(req, res);
    if (answer.kind === 'invalid') return show(req, res, s, dispute, 400, { values, errors: answer.errors });
    if (answer.kind === 'conflict') return show(req, res, s, (await find(s, dispute.row.id)) ?? dispute, 409, { values, errors: [], notice: conflict(req, answer.status) });
    await audit(req, s, AUDITED.evidence, { dispute: dispute.row.id });
    res.redirect(303, `${disputeUrl(dispute.row.id)}?done=evidence`);
  }));

  disputeFileRoute(router, kit, { find, show, conflict });

  for (const name of ['submit', 'accept'] as const satisfies Answer[]) {
    router.post(`/disputes/:id/${name}/`, forms, action('admin', async (req, res, s) => {
      const dispute = await find(s, String(req.params.id));
      if (!dispute) return notFound(req, res);
      const form = confirmForm.safeParse(req.body ?? {});
      // Neither answer can be undone: the first post asks, naming the environment; the confirmed one acts.
      if (!AWAITING_RESPONSE.includes(dispute.row.status)) {
        return show(req, res, s, dispute, 409, { values: savedEvidence(dispute.evidence), errors: [], notice: conflict(req, dispute.row.status) });
      }
      if (!form.success || form.data.confirm !== 'yes') return send(res, 200, confirmAnswerPage({ text: textOf(req), session: s, dispute, action: name }));
      const answer = await answerDisputeOf(deps, s.current.environment_id, dispute.row.id, name);
      if (!answer) return notFound(req, res);
      if (answer.kind !== 'done') {
        const now = (await find(s, dispute.row.id)) ?? dispute;
        return show(req, res, s, now, 409, { values: savedEvidence(now.evidence), errors: [], notice: conflict(req, answer.kind === 'conflict' ? answer.status : now.row.status) });
      }
      await audit(req, s, AUDITED[name], { dispute: dispute.row.id, status: answer.dispute.row.status });
      res.redirect(303, `${disputeUrl(dispute.row.id)}?done=${name}`);
    }));
  }
}
