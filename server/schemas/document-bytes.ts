import type { z } from 'zod';
import { ApiError, fieldError } from '../http/problem';
import { DOCUMENT_FORMATS, type documentFile, MAX_DOCUMENT_BYTES } from './client-objects';

// An uploaded file's bytes, checked against what its request says they are: a client's
// document and a dispute's evidence file (from the API's JSON or the dashboard's form)
// follow the same rules.

export const DOCUMENT_LIMIT_TEXT = `${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB (${MAX_DOCUMENT_BYTES} bytes)`;

export const tooLargeDocument = (at = 'file') =>
  new ApiError('payload_too_large', `A document may be at most ${DOCUMENT_LIMIT_TEXT} once decoded`, [
    { path: `${at}.data`, message: `is larger than ${DOCUMENT_LIMIT_TEXT}` },
  ]);

/** The bytes, once they are known to be what the request says they are. `at` is the file's path in the body. */
export async function checkedBytes(file: z.output<typeof documentFile>, at = 'file'): Promise<Buffer> {
  const bytes = Buffer.from(file.data, 'base64');
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) throw tooLargeDocument(at);
  const endings: readonly string[] = DOCUMENT_FORMATS[file.content_type];
  if (!endings.some((e) => file.name.toLowerCase().endsWith(e))) {
    throw fieldError(`${at}.name`, `must end with ${endings.join(' or ')} for ${file.content_type}`);
  }
  // Loaded on the first upload: the service starts without it.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(bytes);
  if (detected?.mime !== file.content_type) {
    const seen = detected && detected.mime in DOCUMENT_FORMATS ? `they are ${detected.mime}` : 'they are not PDF, PNG, JPEG or WebP';
    throw fieldError(`${at}.content_type`, `does not match the file's bytes (${seen})`);
  }
  return bytes;
}
