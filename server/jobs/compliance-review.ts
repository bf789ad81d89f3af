import type { Logger } from 'pino';
import { sandboxVerdict } from '../domain/compliance';
import { recordVerdict } from '../clients/client-changes';
import { pendingDocuments } from '../store/clients';
import type { Db } from '../store/db';
import type { Outbox } from '../store/events';

// The compliance review: one bounded pass over the documents waiting for review. The
// reviewer is the sandbox rule (domain/compliance.ts); each verdict, the client's and its
// IBANs' new state and their events commit together. Any number of processes may run
// it: a document is claimed by the conditional update that records its verdict.

export interface ComplianceReviewDeps {
  db: Db;
  outbox: Outbox;
  now: () => Date;
  log: Logger;
  /** Once aborted, the pass takes no more documents. */
  signal?: AbortSignal;
}

/** Reviews up to `limit` pending documents; resolves with how many this pass decided. */
export async function reviewDocuments(deps: ComplianceReviewDeps, limit = 50): Promise<number> {
  let decided = 0;
  for (const doc of await pendingDocuments(deps.db, limit)) {
    if (deps.signal?.aborted) break;
    const verdict = sandboxVerdict(doc.file_name);
    if (await recordVerdict(deps.db, doc, verdict, deps.now(), deps.outbox)) {
      decided++;
      // Ids and outcomes only: file names and contents are personal data.
      deps.log.info({ document: doc.id, status: verdict.status }, 'document reviewed');
    }
  }
  return decided;
}
