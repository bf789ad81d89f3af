// The baselines, each in its own process like the service (run by targets.ts):
//   http    a bare node:http server answering the page's HTML bytes from memory
//   express a bare Express 5 route answering the same HTML from memory
//   static  node:http serving captured pages, the screen's assets, widget.js and the
//           reference's files (/docs/*) from memory: what the browser timings compare the
//           real service against
// Usage: node --import tsx test/bench/baseline-server.ts <kind> <port> <pages.json>
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join } from 'node:path';
import express from 'express';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const DOCS_ASSETS = new URL('../../server/docs/assets/', import.meta.url).pathname;
const HTML = 'text/html; charset=utf-8';
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

const [kind, port, pagesFile] = process.argv.slice(2);
/** Request path (with query) → HTML; `*` is the page the bare servers answer to everything. */
const pages = JSON.parse(readFileSync(pagesFile!, 'utf8')) as Record<string, string>;

function bareHttp(): Server {
  const body = Buffer.from(pages['*']!);
  return createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': HTML, 'Content-Length': body.length }).end(body);
  });
}

function bareExpress(): Server {
  const html = pages['*']!;
  const app = express();
  app.get('/pay/:token/', (_req, res) => {
    res.type('html').send(html);
  });
  return createServer(app);
}

function staticFiles(): Server {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [path, html] of Object.entries(pages)) files.set(path, { type: HTML, body: Buffer.from(html) });
  for (const name of readdirSync(join(DIST, 'client/assets'))) {
    files.set(`/assets/${name}`, { type: TYPES[extname(name)] ?? 'application/octet-stream', body: readFileSync(join(DIST, 'client/assets', name)) });
  }
  files.set('/widget.js', { type: TYPES['.js']!, body: readFileSync(join(DIST, 'widget/widget.js')) });
  for (const name of readdirSync(DOCS_ASSETS)) {
    files.set(`/docs/${name}`, { type: TYPES[extname(name)] ?? 'application/octet-stream', body: readFileSync(join(DOCS_ASSETS, name)) });
  }
  return createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length }).end(file.body);
  });
}

const servers: Record<string, () => Server> = { http: bareHttp, express: bareExpress, static: staticFiles };
const make = servers[kind!];
if (!make) throw new Error(`unknown baseline ${kind}`);
const server = make().listen(Number(port), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
