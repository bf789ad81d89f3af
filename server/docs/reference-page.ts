import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import { type Encoded, encodeOnce, sendEncoded } from '../http/encoded';

// The API reference at /docs/: Redoc's standalone bundle, served from node_modules by the
// service itself (no CDN), renders /v1/openapi.json, the document generated from the route
// declarations. Everything the page loads comes from this origin; its CSP says so.

const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/**
 * Redoc's sidebar footer ("API docs by Redocly") always shows a logo from Redocly's CDN,
 * with no option to turn it off: the copy served here points it at an inline image, so
 * the page makes no request to another origin (the e2e test watches for any).
 */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOCAL_LOGO = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%221%22 height=%221%22/%3E';

function redocBundle(): Buffer {
  return Buffer.from(readFileSync(REDOC_BUNDLE, 'utf8').replaceAll(REDOCLY_LOGO, LOCAL_LOGO));
}

/** Redoc's options: no web fonts are named (the theme uses the system's), nothing is fetched but the document. */
const INIT = `'use strict';
Redoc.init('/v1/openapi.json', {
  expandResponses: '200,201',
  hideHostname: true,
  jsonSampleExpandLevel: 3,
  menuToggle: true,
  nativeScrollbars: true,
  pathInMiddlePanel: true,
  theme: {
    colors: { primary: { main: '#0b57d0' }, text: { primary: '#1f1f1f' } },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
      code: { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace' },
    },
  },
}, document.getElementById('reference'));
`;

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>Payment Service API v1 · Reference</title><link rel="icon" href="data:,">' +
  '<link rel="stylesheet" href="/docs/reference.css"></head><body>' +
  '<main id="reference"><noscript><p>The reference needs JavaScript. The contract itself is ' +
  '<a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p></noscript></main>' +
  '<script src="/docs/redoc.standalone.js"></script><script src="/docs/reference.js"></script>' +
  '</body></html>';

const CSS = `body{margin:0}
`;

/** Every header of the page and its files. */
const HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    // Redoc's bundle and our init script, both same-origin: no inline script, no eval.
    "script-src 'self'",
    // Redoc styles itself with styled-components, which writes <style> elements at run
    // time without a nonce: styles (never scripts) may be inline on this page only.
    "style-src 'self' 'unsafe-inline'",
    // The document; search runs in a worker Redoc starts from a blob.
    "connect-src 'self'",
    'worker-src blob:',
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** GET /docs/ and its three files; /docs answers 308 to /docs/. */
export function referenceRouter(): Router {
  const router = express.Router({ strict: true });
  let bundle: Encoded | undefined;
  const files: Record<string, { type: string; body: () => Encoded }> = {
    'redoc.standalone.js': { type: 'js', body: () => (bundle ??= encodeOnce(redocBundle())) },
    'reference.js': { type: 'js', body: once(INIT) },
    'reference.css': { type: 'css', body: once(CSS) },
  };
  router.get('/docs', (req, res) => res.redirect(308, `/docs/${req.url.slice(req.path.length)}`));
  router.get('/docs/', (_req, res) => {
    res.set({ ...HEADERS, 'Cache-Control': 'no-cache' }).type('html').send(PAGE);
  });
  router.get('/docs/:file', (req, res, next) => {
    const file = files[String(req.params.file)];
    if (!file) return next();
    // Not hashed names: revalidated (ETag) on each load, so an upgrade shows at once.
    res.set({ ...HEADERS, 'Cache-Control': 'no-cache' }).type(file.type);
    sendEncoded(req, res, file.body());
  });
  return router;
}

function once(text: string): () => Encoded {
  let encoded: Encoded | undefined;
  return () => (encoded ??= encodeOnce(Buffer.from(text)));
}
