import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions } from 'node:zlib';
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
  /** Absent while encodeInBackground is still compressing: the body goes as it is meanwhile. */
  br?: Buffer;
  gzip?: Buffer;
}

const brotliOptions = (body: Buffer): BrotliOptions => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
});
const GZIP_OPTIONS = { level: constants.Z_BEST_COMPRESSION };

export function encodeOnce(body: Buffer): Encoded {
  return { identity: body, br: brotliCompressSync(body, brotliOptions(body)), gzip: gzipSync(body, GZIP_OPTIONS) };
}

const brotliLater = promisify(brotliCompress);
const gzipLater = promisify(gzip);

/**
 * For a large body made on first request (the API reference: 340 KB, about 0.4 s to
 * compress at these settings): the body at once, its compressed forms once libuv's thread
 * pool has made them. Neither that first reader nor the payments the same process serves
 * wait for the compression.
 */
export function encodeInBackground(body: Buffer): Encoded {
  const encoded: Encoded = { identity: body };
  Promise.all([brotliLater(body, brotliOptions(body)), gzipLater(body, GZIP_OPTIONS)]).then(
    ([br, gz]) => Object.assign(encoded, { br, gzip: gz }),
    // Compressing a buffer in memory does not fail; were it to, the body goes as it is.
    () => {},
  );
  return encoded;
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
  const available = ENCODINGS.filter((e) => body[e]);
  const accepted = new Negotiator(req).encoding(available, { preferred: available });
  const encoding = accepted === 'br' || accepted === 'gzip' ? accepted : 'identity';
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  res.send(body[encoding]);
}
