import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { ViteManifestEntry } from '../../widget/screen/document';

// What the customer downloads, from the production build in dist/ (npm run build): each
// file compressed on its own, as it travels, at the strongest settings a static build
// would precompress with (gzip -9, brotli 11), summed over the files a page loads.

const DIST = new URL('../../dist/', import.meta.url).pathname;
const ENTRY = 'widget/screen/client.tsx';
/** Loaded only when an issuer challenges a payment: its own budget, outside the page's. */
const CHALLENGE = 'widget/screen/challenge-dialog.tsx';

export interface Size {
  files: string[];
  raw: number;
  gzip: number;
  brotli: number;
}

export interface Budget {
  name: string;
  /** gzip bytes. */
  actual: number;
  limit: number;
  ok: boolean;
}

export interface AssetBytes {
  widget: Size;
  /** The hosted page: the entry and every chunk it imports statically. */
  screenJs: Size;
  /** The embed page adds the chunks the entry imports dynamically (the frame bridge). */
  embedJs: Size;
  /** The challenge dialog, fetched when a payment is challenged (beyond what the page has). */
  challengeJs: Size;
  css: Size;
}

const KB = 1024;
/** widget: vite.widget.config.ts's build budget. */
export const BUDGETS = { widget: 1400, screenJs: 30 * KB, challengeJs: 2 * KB, css: 6 * KB };

function compress(body: Buffer): { gzip: number; brotli: number } {
  return {
    gzip: gzipSync(body, { level: 9 }).length,
    brotli: brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }).length,
  };
}

export function sizeOf(files: { name: string; body: Buffer }[]): Size {
  const total: Size = { files: files.map((f) => f.name), raw: 0, gzip: 0, brotli: 0 };
  for (const file of files) {
    const c = compress(file.body);
    total.raw += file.body.length;
    total.gzip += c.gzip;
    total.brotli += c.brotli;
  }
  return total;
}

const asset = (file: string) => ({ name: file, body: readFileSync(join(DIST, 'client', file)) });

type Manifest = Record<string, ViteManifestEntry & { imports?: string[]; dynamicImports?: string[] }>;

/** Manifest keys reachable from `from` through static imports (and dynamic ones when asked). */
function reachable(manifest: Manifest, from: string[], dynamic: boolean, except: string[] = []): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key) || except.includes(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in dist/client/.vite/manifest.json`);
    seen.add(key);
    for (const next of [...(chunk.imports ?? []), ...(dynamic ? (chunk.dynamicImports ?? []) : [])]) visit(next);
  };
  from.forEach(visit);
  return [...seen];
}

export function assetBytes(): AssetBytes {
  const manifest = JSON.parse(readFileSync(join(DIST, 'client/.vite/manifest.json'), 'utf8')) as Manifest;
  const widget = JSON.parse(readFileSync(join(DIST, 'widget/manifest.json'), 'utf8')) as { file: string };
  const hosted = reachable(manifest, [ENTRY], false);
  const embed = reachable(manifest, [ENTRY], true, [CHALLENGE]);
  const challenge = reachable(manifest, [CHALLENGE], true).filter((key) => !embed.includes(key));
  const js = (keys: string[]) => sizeOf(keys.map((k) => asset(manifest[k]!.file)));
  return {
    widget: sizeOf([{ name: widget.file, body: readFileSync(join(DIST, 'widget', widget.file)) }]),
    screenJs: js(hosted),
    embedJs: js(embed),
    challengeJs: js(challenge),
    css: sizeOf([...new Set([...embed, ...challenge].flatMap((k) => manifest[k]!.css ?? []))].map(asset)),
  };
}

export function checkBudgets(a: AssetBytes): Budget[] {
  const check = (name: string, size: Size, limit: number): Budget => ({ name, actual: size.gzip, limit, ok: size.gzip <= limit });
  return [
    check('widget.js', a.widget, BUDGETS.widget),
    check('screen JS, hosted page', a.screenJs, BUDGETS.screenJs),
    check('screen JS, embed page', a.embedJs, BUDGETS.screenJs),
    check('challenge dialog JS', a.challengeJs, BUDGETS.challengeJs),
    check('screen CSS', a.css, BUDGETS.css),
  ];
}
