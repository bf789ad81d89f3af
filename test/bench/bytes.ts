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
/** Loaded only on a page that offers Stripe's Payment Element, once its gateway is chosen: its own budget, outside the pages'. */
const STRIPE_ELEMENT = 'widget/screen/stripe-element.ts';

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
  /** Our glue of Stripe's Payment Element (Stripe.js itself is Stripe's), on the pages that offer it. */
  stripeElementJs: Size;
  css: Size;
}

/**
 * gzip bytes: what each weighed when last set (1 December 2026) plus about 3 %, so CI fails
 * on growth (docs/performance.md, "Byte budgets"). widget: vite.widget.config.ts's build
 * budget too. A change that must add to a page raises its budget in the same commit and
 * says why; a processor's own script, loaded only on the pages that offer it, gets a budget
 * of its own here, outside the pages'.
 */
const BUDGETS = { widget: 1400, screenJsHosted: 15_500, screenJsEmbed: 18_300, challengeJs: 1_000, stripeElementJs: 600, css: 4_300 };

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
  const embed = reachable(manifest, [ENTRY], true, [CHALLENGE, STRIPE_ELEMENT]);
  const challenge = reachable(manifest, [CHALLENGE], true, [STRIPE_ELEMENT]).filter((key) => !embed.includes(key));
  const stripeElement = reachable(manifest, [STRIPE_ELEMENT], true, [CHALLENGE]).filter((key) => !embed.includes(key));
  const js = (keys: string[]) => sizeOf(keys.map((k) => asset(manifest[k]!.file)));
  return {
    widget: sizeOf([{ name: widget.file, body: readFileSync(join(DIST, 'widget', widget.file)) }]),
    screenJs: js(hosted),
    embedJs: js(embed),
    challengeJs: js(challenge),
    stripeElementJs: js(stripeElement),
    css: sizeOf([...new Set([...embed, ...challenge].flatMap((k) => manifest[k]!.css ?? []))].map(asset)),
  };
}

export function checkBudgets(a: AssetBytes): Budget[] {
  const check = (name: string, size: Size, limit: number): Budget => ({ name, actual: size.gzip, limit, ok: size.gzip <= limit });
  return [
    check('widget.js', a.widget, BUDGETS.widget),
    check('screen JS, hosted page', a.screenJs, BUDGETS.screenJsHosted),
    check('screen JS, embed page', a.embedJs, BUDGETS.screenJsEmbed),
    check('challenge dialog JS', a.challengeJs, BUDGETS.challengeJs),
    check('Stripe Payment Element glue JS', a.stripeElementJs, BUDGETS.stripeElementJs),
    check('screen CSS', a.css, BUDGETS.css),
  ];
}

/**
 * What a payment page makes the browser fetch and parse on every view, the page's scripts
 * (entry, static imports, modulepreloads, the chunks the entry always imports for that kind
 * of page) plus its inline state, each text compressed on its own. The challenge dialog
 * loads only when an issuer asks: it has its own budget above. Each page's budget is its
 * weight when last set plus at most 3 % (1 December 2026: hosted 16,491 B, embed 18,290 B,
 * save-card 16,472 B, sign-up 16,740 B); the stack is decided (Preact and signals), so
 * these hold today's weight rather than aim lower.
 */
const PAGE_JS_BUDGETS: Record<string, number> = {
  'hosted page (3 products)': 17_000,
  'embed page (3 products)': 18_500,
  'save-card page': 17_000,
  'sign-up page': 17_000,
};

export interface PageWeight {
  /** What the page is, as printed: "hosted page (3 products)". */
  page: string;
  js: Size;
  /** The inline scripts' text (the state the browser rebuilds the screen from). */
  state: Size;
  /** js.gzip + state.gzip. */
  gzip: number;
}

/** Dynamic imports a page may make, and the pages that make them on every view. */
const DYNAMIC_ON_EVERY_VIEW: Record<string, (html: string) => boolean> = {
  // client.tsx imports embed mode (with the frame bridge) at start, in embed mode only.
  'widget/screen/embed-mode.ts': (html) => /<html[^>]* class="embed"/.test(html),
  'widget/embed/frame-bridge.ts': (html) => /<html[^>]* class="embed"/.test(html),
  // result-loader.tsx fetches a closed payment's result at start only on a page showing one.
  'widget/screen/components/Outcome.tsx': (html) => html.includes('id="status-title"'),
  // client.tsx imports Stripe's glue once a gateway with its own fields is chosen: counted on a page that offers one.
  [STRIPE_ELEMENT]: (html) => html.includes('"hosted":{'),
};

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/**
 * The page's weight from its HTML: the module scripts and modulepreloads it names, what
 * they import statically (Vite's manifest), the dynamic imports DYNAMIC_ON_EVERY_VIEW
 * says the page makes at once; a dynamic import it does not list counts too (the
 * challenge dialog excepted), so a new lazy chunk is counted until it is listed.
 */
export function pageWeight(page: string, html: string): PageWeight {
  const manifest = JSON.parse(readFileSync(join(DIST, 'client/.vite/manifest.json'), 'utf8')) as Manifest;
  const byFile = new Map(Object.entries(manifest).map(([key, chunk]) => [`/${chunk.file}`, key]));
  const tags = html.match(/<(script|link)\b[^>]*>/g) ?? [];
  const urls = tags
    .filter((tag) => (tag.startsWith('<script') ? attribute(tag, 'type') === 'module' : attribute(tag, 'rel') === 'modulepreload'))
    .map((tag) => attribute(tag, 'src') ?? attribute(tag, 'href'))
    .filter((url): url is string => url !== undefined);
  const roots = urls.map((url) => {
    const key = byFile.get(url);
    if (!key) throw new Error(`${page}: ${url} is not in dist/client/.vite/manifest.json`);
    return key;
  });
  const keys = new Set(reachable(manifest, roots, false));
  for (const key of [...keys]) {
    for (const lazy of manifest[key]!.dynamicImports ?? []) {
      if (lazy === CHALLENGE) continue;
      const always = DYNAMIC_ON_EVERY_VIEW[lazy];
      if (!always || always(html)) reachable(manifest, [lazy], false, [CHALLENGE]).forEach((k) => keys.add(k));
    }
  }
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter((m) => attribute(m[0], 'src') === undefined)
    .map((m, i) => ({ name: attribute(m[0], 'id') ?? `inline script ${i + 1}`, body: Buffer.from(m[2]!) }));
  const js = sizeOf([...keys].map((k) => asset(manifest[k]!.file)));
  const state = sizeOf(inline);
  return { page, js, state, gzip: js.gzip + state.gzip };
}

export function checkPageBudgets(pages: PageWeight[]): Budget[] {
  return pages.map((p) => {
    const limit = PAGE_JS_BUDGETS[p.page];
    if (limit === undefined) throw new Error(`${p.page}: no byte budget in PAGE_JS_BUDGETS`);
    return { name: `page JS + inline state, ${p.page}`, actual: p.gzip, limit, ok: p.gzip <= limit };
  });
}
