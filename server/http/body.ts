import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler } from 'express';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../domain/json-depth';
import { inexactNumbers } from './json-numbers';

declare module 'express-serve-static-core' {
  interface Request {
    /** The paths of the body's numbers that JSON.parse rounded (json-numbers.ts); a route with a body refuses them. */
    inexactNumbers?: string[];
  }
}

// JSON bodies as the service reads them (the API and the checkout's hydrated screen).

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * express.json, refusing a declared charset other than UTF-8 with the parser's own 415
 * (`charset.unsupported`): JSON between systems is UTF-8 (RFC 8259), and body-parser would
 * decode `utf-16` and then fail to parse it, a 400 that blames the content. Bytes that are
 * not UTF-8 (Latin-1 sent as JSON) get the same 415: decoded, each would become U+FFFD and
 * be stored so, and two different bodies could read the same.
 */
export function jsonBody(options: { limit: string | number; strict?: boolean }): RequestHandler {
  const parse = express.json({ ...options, verify: readBytes });
  return (req, res, next) => {
    const charset = CHARSET.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && req.is('json')) {
      return next(Object.assign(new Error(`unsupported charset "${charset.toUpperCase()}"`), { status: 415, type: 'charset.unsupported', charset }));
    }
    parse(req, res, (err?: unknown) => {
      if (err || !nestedTooDeep(req.body)) return next(err);
      next(Object.assign(new Error(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), { status: 400, type: 'entity.too.deep' }));
    });
  };
}

/** What the parser cannot see once it has decoded the bytes: whether they were UTF-8, and the numbers it will round. */
function readBytes(req: Request, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('The body is not valid UTF-8'), { status: 415, type: 'charset.unsupported' });
  const inexact = inexactNumbers(body.toString('utf8'));
  if (inexact.length) req.inexactNumbers = inexact;
}

/** The status a failed body read answers with: 413 too large, 415 charset or encoding, else 400. */
export function bodyFailureStatus(err: unknown): 400 | 413 | 415 {
  const status = (err as { status?: unknown } | null)?.status;
  return status === 413 || status === 415 ? status : 400;
}
