import busboy from 'busboy';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Books } from './books';
import { invalidParams, missingParameter, noSuch, StripeRefusal, unknownParameter } from './errors';
import { file, type StripeObject } from './objects';

// Stripe's files host (`files.stripe.com`, here a listener of its own: server.ts
// `filesUrl`): `POST /v1/files`, multipart/form-data with `purpose` and `file`. Only
// uploads go there; the API host answers `GET /v1/files/{id}` and refuses an upload, so a
// client that sends a file to the API host is caught. Strict where Stripe is: an unknown
// field, no file, a purpose Stripe does not know, and for `dispute_evidence` a file that is
// not a PDF, JPEG or PNG (read from its bytes) or is larger than 5 MB. The 5 MB bound is
// our reading of Stripe's limit on dispute evidence, not checked against Stripe itself.

const PURPOSES = ['dispute_evidence', 'identity_document', 'business_logo', 'business_icon', 'customer_signature', 'pci_document', 'tax_document_user_upload'];
const FIELDS = new Set(['purpose', 'file', 'file_link_data[create]', 'expand[]', 'expand[0]']);
const DISPUTE_EVIDENCE_LIMIT = 5 * 1024 * 1024;
/** Beyond any file taken: refused before it is read. */
const READ_LIMIT = 16 * 1024 * 1024;

export function fileOf(books: Books, id: string): StripeObject {
  const found = books.files.get(id);
  if (!found) throw noSuch('file', id);
  return found;
}

/** What the bytes are, as Stripe names file types; null for anything else. */
function typeOf(bytes: Buffer): string | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpg';
  return null;
}

export interface Upload {
  fields: Record<string, string>;
  file: { name: string; bytes: Buffer } | null;
}

/** Reads a multipart upload; a body that is not one is refused as Stripe refuses an unreadable request. */
export function readUpload(req: IncomingMessage): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fileSize: READ_LIMIT } });
    } catch {
      req.resume();
      return reject(invalidParams(null, 'Invalid request: a file upload must be multipart/form-data.', 'file'));
    }
    const upload: Upload = { fields: {}, file: null };
    const pending: Promise<void>[] = [];
    parser.on('field', (name, value) => void (upload.fields[name] = value));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      pending.push(
        new Promise((done) =>
          stream.on('close', () => {
            if (name === 'file') upload.file = { name: info.filename ?? 'file', bytes: Buffer.concat(chunks) };
            else upload.fields[name] = '(a file)';
            done();
          }),
        ),
      );
    });
    parser.on('close', () => void Promise.all(pending).then(() => resolve(upload)));
    parser.on('error', () => reject(invalidParams(null, 'Invalid request: the multipart body could not be read.', 'file')));
    req.pipe(parser);
  });
}

/** The canonical text of an upload, to compare a repeat of its Idempotency-Key. */
export const uploadRequest = (u: Upload) => `POST /v1/files ${JSON.stringify(Object.entries(u.fields).sort())} ${u.file ? createHash('sha256').update(u.file.bytes).digest('hex') : '-'}`;

/** `POST /v1/files` on the files host: the file, or Stripe's refusal. */
export function createFile(books: Books, u: Upload): StripeObject {
  for (const name of Object.keys(u.fields)) if (!FIELDS.has(name)) throw unknownParameter(name);
  const purpose = u.fields.purpose;
  if (!purpose) throw missingParameter('purpose');
  if (!PURPOSES.includes(purpose)) throw invalidParams(null, `Invalid purpose: must be one of ${PURPOSES.join(', ')}`, 'purpose');
  if (!u.file || u.file.bytes.length === 0) throw missingParameter('file');
  const type = typeOf(u.file.bytes);
  if (purpose === 'dispute_evidence') {
    if (!type) throw new StripeRefusal(400, { type: 'invalid_request_error', message: 'Invalid file: a file for dispute evidence must be a PDF, JPEG or PNG.', param: 'file' }, true);
    if (u.file.bytes.length > DISPUTE_EVIDENCE_LIMIT) throw new StripeRefusal(400, { type: 'invalid_request_error', message: `Invalid file: a file for dispute evidence may be at most ${DISPUTE_EVIDENCE_LIMIT} bytes.`, param: 'file' }, true);
  }
  const f = file({ purpose, size: u.file.bytes.length, type: type ?? 'unknown', filename: u.file.name, created: books.now() });
  books.files.set(f.id, f);
  books.fileBytes.set(f.id, u.file.bytes);
  return f;
}
