import type { IRouter, Request, Response } from 'express';
import { addDisputeEvidence, MAX_EVIDENCE_FILES } from '../commands/dispute-answers';
import type { DisputeStatus } from '../domain/disputes';
import { MAX_DOCUMENT_BYTES } from '../schemas/client-objects';
import type { StoredDispute } from '../store/disputes';
import type { ActiveSession } from './accounts';
import { messagePage } from './account-pages';
import { fileErrorOf, type FileError } from './dispute-file-form';
import { type Errors, type EvidenceValues, savedEvidence } from './dispute-form';
import { disputeUrl } from './dispute-page';
import type { Kit } from './kit';
import type { ActionNotice } from './list-parts';
import { ID } from './money-routes';
import { FRAMING_BYTES, multipartForm } from './upload';

// A dispute's files added from its page: an admin's or owner's upload (multipart, no
// script) handed to the API's own use case as the API's JSON carries files, so the same
// schema and checks judge them (type by the bytes, size, count, what a processor takes),
// the same `dispute.updated` event follows and the evidence submitted includes them.

interface DisputePage {
  find(s: ActiveSession, id: string): Promise<StoredDispute | undefined>;
  show(req: Request, res: Response, s: ActiveSession, d: StoredDispute, status: number, refused: { values: EvidenceValues; errors: Errors; fileError?: FileError; notice?: ActionNotice }): Promise<void>;
  conflict(req: Request, status: DisputeStatus): ActionNotice;
}

const MIB = MAX_DOCUMENT_BYTES / 1024 / 1024;

export function disputeFileRoute(router: IRouter, kit: Kit, page: DisputePage): void {
  const { deps, action, send, textOf, audit, notFound } = kit;
  const { find, show, conflict } = page;
  // The whole body within the API's limit on all files at once (larger is refused before
  // it is read, as the API's body limit is), and one file past the API's count kept so
  // that the API's own count limit refuses it.
  const upload = multipartForm('file', { fileBytes: MAX_DOCUMENT_BYTES, files: MAX_EVIDENCE_FILES + 1, bodyBytes: MAX_DOCUMENT_BYTES + FRAMING_BYTES }, (req, res) => {
    const text = textOf(req);
    const id = String(req.params.id);
    const back = ID.test(id) ? { href: disputeUrl(id), label: text.t('dsp.one', { id }) } : { href: '/dashboard/disputes/', label: text.t('dsp.back') };
    send(res, 413, messagePage(text, text.t('dsp.fileRefused'), text.t('dsp.fileError.too_large', { mib: MIB }), back));
  });
  const refused = (req: Request, res: Response, s: ActiveSession, d: StoredDispute, status: number, fileError: FileError) =>
    show(req, res, s, d, status, { values: savedEvidence(d.evidence), errors: [], fileError });

  router.post('/disputes/:id/files/', upload, action('admin', async (req, res, s) => {
    const dispute = await find(s, String(req.params.id));
    if (!dispute) return notFound(req, res);
    const uploads = req.uploads ?? [];
    if (uploads.length === 0) return refused(req, res, s, dispute, 400, 'missing');
    if (uploads.some((u) => u.tooLarge)) return refused(req, res, s, dispute, 413, 'too_large');
    const files = uploads.map((u) => ({ name: u.name, content_type: u.type, data: u.bytes.toString('base64') }));
    const answer = await addDisputeEvidence(deps, s.current.environment_id, dispute.row.id, { files });
    if (!answer) return notFound(req, res);
    if (answer.kind === 'invalid') return refused(req, res, s, dispute, answer.status, fileErrorOf(answer));
    if (answer.kind === 'conflict') {
      const now = (await find(s, dispute.row.id)) ?? dispute;
      return show(req, res, s, now, 409, { values: savedEvidence(now.evidence), errors: [], notice: conflict(req, answer.status) });
    }
    for (const f of files) await audit(req, s, 'dispute_file_added', { dispute: dispute.row.id, name: f.name });
    res.redirect(303, `${disputeUrl(dispute.row.id)}?done=file`);
  }));
}
