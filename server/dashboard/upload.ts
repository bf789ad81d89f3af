import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';

// multipart/form-data for the dashboard's upload forms (the settings' brand and logo, a bank
// statement), with busboy. The fields land in `req.body` like the urlencoded forms' (so the
// CSRF guard reads its token the same way) and the file in `req.upload`. A file over
// `maxFileBytes` is kept only as "too large" (busboy drops its bytes past the limit) so the
// page can say so; a request far beyond any file we take is refused before it is read, and
// a malformed one parses as an empty form, which the CSRF guard then refuses.

declare module 'express-serve-static-core' {
  interface Request {
    upload?: Upload;
  }
}

export interface Upload {
  field: string;
  /** Empty when the form was sent without a file chosen. */
  bytes: Buffer;
  /** Larger than the limit: its bytes are not kept. */
  tooLarge: boolean;
}

/** Room for the form's other fields and the multipart framing around the file. */
const FRAMING_BYTES = 64 * 1024;
/** The settings form's ten fields (each colour three times: text, picker, the colour shown) and room for two more. */
const MAX_FIELDS = 12;
/** Past this the body is not read at all: a browser sending our form never gets near it. */
const REFUSE_FACTOR = 8;

/** Parses one file field (`field`) and a few short text fields; `onRefused` answers a body too large to read. */
export function multipartForm(field: string, maxFileBytes: number, onRefused: RequestHandler): RequestHandler {
  const refuseAbove = maxFileBytes * REFUSE_FACTOR + FRAMING_BYTES;
  return (req, res, next) => {
    req.body = {};
    if (!req.is('multipart/form-data')) return next();
    if (Number(req.get('content-length') ?? 0) > refuseAbove) {
      req.resume();
      return onRefused(req, res, next);
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1, fieldSize: 1024, fileSize: maxFileBytes } });
    } catch {
      // No boundary, or an unknown type: an empty form.
      req.resume();
      return next();
    }
    const fields: Record<string, string> = {};
    let read = 0;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      req.unpipe(parser);
      req.resume();
      if (ok) req.body = fields;
      next();
    };
    parser.on('field', (name, value) => void (fields[name] = value));
    parser.on('file', (name, stream) => collect(req, field, name, stream));
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

function collect(req: Request, field: string, name: string, stream: NodeJS.ReadableStream & { truncated?: boolean }): void {
  if (name !== field) return void stream.resume();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => {
    req.upload = { field, bytes: Buffer.concat(chunks), tooLarge: stream.truncated === true };
  });
}
