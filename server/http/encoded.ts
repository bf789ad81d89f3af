import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';

// Files that never change while the process runs (the built scripts and styles, the widget
// loader), sent compressed when the browser takes it: a script shrinks to about a third,
// which a phone on a slow network feels. Each is compressed once, at the strongest
// settings, so a request costs no compression at all. The payment page itself is not
// compressed here: it differs per response (nonce, clock), and gzip at its fastest would
// add about 40 % to a view's CPU (77 µs in a loop against 0.2 ms).

export interface Encoded {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

export function encodeOnce(body: Buffer): Encoded {
  return {
    identity: body,
    br: brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    gzip: gzipSync(body, { level: constants.Z_BEST_COMPRESSION }),
  };
}

/** Smallest first: browsers list gzip before br at the same weight, and br is smaller. */
const ENCODINGS = ['br', 'gzip', 'identity'] as const;

/**
 * Sends the encoding the request prefers by its q-values, the smaller one between equals,
 * with `Vary: Accept-Encoding` so that a cache never hands one client another's encoding.
 * `res.send` adds the length, an ETag per encoding and the 304 for a fresh copy.
 */
export function sendEncoded(req: Request, res: Response, body: Encoded): void {
  res.vary('Accept-Encoding');
  const accepted = new Negotiator(req).encoding(ENCODINGS, { preferred: ENCODINGS });
  const encoding = accepted === 'br' || accepted === 'gzip' ? accepted : 'identity';
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.send(body[encoding]);
}
