import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import express, { type Router } from 'express';
import { assetsFromManifest, type DocumentAssets } from '../../widget/screen/document';
import { type Encoded, encodeOnce, sendEncoded } from '../http/encoded';

// The production build (npm run build) is served from dist/: hashed screen assets with a
// year-long cache, and the widget loader at a stable and a versioned URL.

const DIST = resolve(import.meta.dirname, '../../dist');
const YEAR = 365 * 24 * 60 * 60;

export interface WidgetManifest {
  file: string;
  hash: string;
  integrity: string;
}

let screenAssets: DocumentAssets | undefined;

/** Read on first use, so the API runs (and its tests pass) without a browser build. */
export function loadScreenAssets(): DocumentAssets {
  if (screenAssets) return screenAssets;
  const path = resolve(DIST, 'client/.vite/manifest.json');
  if (!existsSync(path)) {
    throw new Error('The checkout screen is not built: run `npm run build` (npm start does it for you).');
  }
  screenAssets = assetsFromManifest(JSON.parse(readFileSync(path, 'utf8')));
  return screenAssets;
}

function loadWidgetManifest(): WidgetManifest {
  const path = resolve(DIST, 'widget/manifest.json');
  if (!existsSync(path)) throw new Error('The widget is not built: run `npm run build`.');
  return JSON.parse(readFileSync(path, 'utf8')) as WidgetManifest;
}

/** The built scripts and styles by file name, read and compressed on first use; none before a build. */
function loadBuiltAssets(): Map<string, Encoded> {
  const dir = resolve(DIST, 'client/assets');
  if (!existsSync(dir)) return new Map();
  return new Map(readdirSync(dir).map((name) => [name, encodeOnce(readFileSync(resolve(dir, name)))]));
}

export function assetsRouter(): Router {
  const router = express.Router();
  let built: Map<string, Encoded> | undefined;
  // Hashed names: a file's content never changes, so caches keep it for a year.
  router.get('/assets/:name', (req, res, next) => {
    // Read again while empty: a build made after the start is then served, as the page is.
    if (!built?.size) built = loadBuiltAssets();
    const body = built.get(String(req.params.name));
    if (!body) return next();
    res.type(extname(String(req.params.name)));
    res.set({
      'Cache-Control': `public, max-age=${YEAR}, immutable`,
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
    });
    sendEncoded(req, res, body);
  });
  let widget: { manifest: WidgetManifest; code: Encoded } | undefined;
  const loadWidget = () => {
    if (!widget) {
      const manifest = loadWidgetManifest();
      widget = { manifest, code: encodeOnce(readFileSync(resolve(DIST, 'widget', manifest.file))) };
    }
    return widget;
  };
  const sendWidget = (cache: string) => (req: express.Request, res: express.Response) => {
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': cache,
      // Merchant pages on any origin load it.
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
    });
    sendEncoded(req, res, loadWidget().code);
  };
  // The stable URL revalidates daily so fixes reach merchants; the versioned one never changes.
  router.get('/widget.js', sendWidget('public, max-age=86400, stale-while-revalidate=604800'));
  router.get(/^\/widget\.([0-9a-f]{8})\.js$/, (req, res, next) =>
    req.params[0] === loadWidget().manifest.hash ? sendWidget(`public, max-age=${YEAR}, immutable`)(req, res) : next(),
  );
  return router;
}
