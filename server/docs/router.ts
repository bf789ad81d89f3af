import { readFileSync } from 'node:fs';
import express, { type Router } from 'express';
import { type Encoded, encodeInBackground, sendEncoded } from '../http/encoded';
import { ERRORS_PAGE, PROBLEM_CATALOGUE } from '../http/problem';
import { OpenApiDocument } from './document';
import { renderErrors } from './errors';
import { renderReference } from './reference';

// /docs/: pages rendered on the server from the OpenAPI document the service publishes,
// once, on first request, then kept compressed (br, gzip, made in the background) like any
// unchanging file. Today
// two pages: the API reference and the errors page every problem's `doc_url` points at;
// a guide is one more entry in `pages`.

const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url));

/** The page's files: not hashed names, so revalidated (ETag) on each load and an upgrade shows at once. */
const FILES: Record<string, { type: string; body: () => Buffer }> = {
  'docs.css': { type: 'css', body: () => asset('docs.css') },
  'docs.js': { type: 'js', body: () => asset('docs.js') },
};

const ASSETS = { styles: ['/docs/docs.css'], scripts: ['/docs/docs.js'] };

/** Every header of the pages and their files: nothing but this origin's stylesheet and script. */
const HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // The empty favicon (`data:,`): no request for /favicon.ico.
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

export interface DocsSource {
  /** The OpenAPI document, as /v1/openapi.json serves it. */
  openapi: () => unknown;
}

/** GET /docs/ and its files; /docs answers 308 to /docs/. */
export function docsRouter(source: DocsSource): Router {
  const pages: Record<string, () => Encoded> = {
    '/docs/': once(() => renderReference(OpenApiDocument.parse(source.openapi()), PROBLEM_CATALOGUE, ASSETS)),
    [ERRORS_PAGE]: once(() => renderErrors(PROBLEM_CATALOGUE, ASSETS)),
  };
  const files = Object.fromEntries(Object.entries(FILES).map(([name, f]) => [name, { type: f.type, body: once(f.body) }]));
  const router = express.Router({ strict: true });
  router.get('/docs', (req, res) => res.redirect(308, `/docs/${req.url.slice(req.path.length)}`));
  for (const [path, page] of Object.entries(pages)) {
    router.get(path, (req, res) => {
      res.set(HEADERS).type('html');
      sendEncoded(req, res, page());
    });
  }
  router.get('/docs/:file', (req, res, next) => {
    const file = files[String(req.params.file)];
    if (!file) return next();
    res.set(HEADERS).type(file.type);
    sendEncoded(req, res, file.body());
  });
  return router;
}

function once(make: () => string | Buffer): () => Encoded {
  let encoded: Encoded | undefined;
  return () => (encoded ??= encodeInBackground(Buffer.from(make())));
}
