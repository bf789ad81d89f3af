import busboy from 'busboy';
import type { RequestHandler } from 'express';

// multipart/form-data for the dashboard's upload forms (the settings' brand and logo, a
// dispute's evidence files, a bank statement), with busboy. The fields land in `req.body` like the urlencoded forms' (so the
// CSRF guard reads its token the same way) and the files in `req.uploads`. A file over
// `fileBytes` is kept only as "too large" (busboy drops its bytes past the limit) so the
// page can say so; a request past `bodyBytes` is refused before it is read, and a
// malformed one parses as an empty form, which the CSRF guard then refuses.

declare module 'express-serve-static-core' {
  interface Request {
    uploads?: Upload[];
  }
}

export interface Upload {
  /** The file's name as the browser sent it (no folders). */
  name: string;
  /** The media type the browser claims for it. */
  type: string;
  /** Empty when the form was sent without a file chosen. */
  bytes: Buffer;
  /** Larger than the limit: its bytes are not kept. */
  tooLarge: boolean;
}

/** Room for the form's other fields and the multipart framing around the files. */
export const FRAMING_BYTES = 64 * 1024;
/** By default, past this many times the file's limit the body is not read at all: a browser sending our form never gets near it. */
const REFUSE_FACTOR = 8;
/** The settings form's ten fields (each colour three times: text, picker, the colour shown) and room for two more. */
const MAX_FIELDS = 12;

export interface UploadLimits {
  /** Each file's limit. */
  fileBytes: number;
  /** Files kept; those after are ignored. */
  files?: number;
  /** The whole body's limit (default: REFUSE_FACTOR files and the framing). */
  bodyBytes?: number;
}

/** Parses the file field `field` and a few short text fields; `onRefused` answers a body too large to read. */
export function multipartForm(field: string, limits: UploadLimits, onRefused: RequestHandler): RequestHandler {
  const refuseAbove = limits.bodyBytes ?? limits.fileBytes * REFUSE_FACTOR + FRAMING_BYTES;
  const files = limits.files ?? 1;
  return (req, res, next) => {
    req.body = {};
    if (!req.is('multipart/form-data')) return next();
    if (Number(req.get('content-length') ?? 0) > refuseAbove) {
      req.resume();
      return onRefused(req, res, next);
    }
    let parser: busboy.Busboy;
    try {
      // Browsers send a file's name as UTF-8 (busboy's default reads it as Latin-1).
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files, fields: MAX_FIELDS, parts: MAX_FIELDS + files, fieldSize: 1024, fileSize: limits.fileBytes } });
    } catch {
      // No boundary, or an unknown type: an empty form.
      req.resume();
      return next();
    }
    const fields: Record<string, string> = {};
    const uploads: Upload[] = [];
    let read = 0;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      req.unpipe(parser);
      req.resume();
      if (ok) {
        req.body = fields;
        req.uploads = uploads;
      }
      next();
    };
    parser.on('field', (name, value) => void (fields[name] = value));
    parser.on('file', (name, stream, info) => {
      if (name !== field) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const upload = { name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(chunks), tooLarge: stream.truncated === true };
        // A file input left empty still sends a part, without a name or bytes.
        if (upload.name !== '' || upload.bytes.length > 0) uploads.push(upload);
      });
    });
    parser.on('close', () => finish(true));
    parser.on('error', () => finish(false));
    req.on('data', (chunk: Buffer) => {
      read += chunk.length;
      // A body without a length (chunked) that grows past the bound: stop reading it.
      if (read > refuseAbove && !done) {
        done = true;
        req.unpipe(parser);
        req.resume();
        onRefused(req, res, next);
      }
    });
    req.pipe(parser);
  };
}
