import type { Browser } from '@playwright/test';
import { type Budget, type Size, sizeOf } from './bytes';
import { median } from './median';

// The API reference at /docs/ (issue 24): its bytes as the service sends them, and in
// Chromium the time from navigation to the page's h1 being painted, with the size of the
// DOM it builds. The h1 carries `elementtiming`, so the Element Timing API reports when its
// text was painted (not merely parsed); first contentful paint and DOMContentLoaded are
// recorded beside it.

const KB = 1024;
/**
 * gzip; the reference was 549 B of HTML plus Redoc's bundle before issue 24. The page
 * lists every operation with its schemas, so its HTML is budgeted per operation: 440 B
 * each, the 40 KB the page had for its first 93 operations. A new operation brings its
 * allowance; anything else that grows the page must fit.
 */
const DOCS_BUDGETS = { htmlPerOperation: 440, css: 3 * KB, js: 1 * KB, errors: 4 * KB };
/** Redoc's page, measured on the machine: its DOM, and a fifth of it as the budget. */
export const REDOC_ELEMENTS = 35_497;

export interface DocsBytes {
  html: Size;
  /** How many operations the document (and so the page) holds. */
  operations: number;
  /** The errors page (/docs/errors), which shares the reference's CSS and JS. */
  errors: Size;
  css: Size;
  js: Size;
}

/** The page and the stylesheets and scripts it names, fetched from the service. */
export async function docsBytes(origin: string): Promise<DocsBytes> {
  const get = async (path: string) => {
    const res = await fetch(`${origin}${path}`);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    return { name: path, body: Buffer.from(await res.arrayBuffer()) };
  };
  const page = await get('/docs/');
  const html = page.body.toString();
  const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
  const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
  const document = JSON.parse((await get('/v1/openapi.json')).body.toString()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(document.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  return { html: sizeOf([page]), operations, errors: sizeOf([await get('/docs/errors')]), css: sizeOf(await Promise.all(styles.map(get))), js: sizeOf(await Promise.all(scripts.map(get))) };
}

export function checkDocsBudgets(d: DocsBytes): Budget[] {
  const check = (name: string, size: Size, limit: number): Budget => ({ name, actual: size.gzip, limit, ok: size.gzip <= limit });
  return [
    check('docs HTML', d.html, DOCS_BUDGETS.htmlPerOperation * d.operations),
    check('docs errors HTML', d.errors, DOCS_BUDGETS.errors),
    check('docs CSS', d.css, DOCS_BUDGETS.css),
    check('docs JS', d.js, DOCS_BUDGETS.js),
  ];
}

interface DocsVisit {
  /** Navigation start → the h1's text painted, ms. */
  heading: number;
  firstContentfulPaint: number;
  domContentLoaded: number;
  /** Elements (`getElementsByTagName('*')`) and all nodes (text, comments, the doctype too) once loaded. */
  elements: number;
  nodes: number;
}

const OBSERVE = () => {
  const w = window as unknown as Record<string, number>;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.entryType === 'element' && (e as unknown as { identifier: string }).identifier === 'heading') {
        w.__heading = (e as unknown as { renderTime: number }).renderTime || e.startTime;
      }
      if (e.name === 'first-contentful-paint') w.__fcp = e.startTime;
    }
  }).observe({ entryTypes: ['element', 'paint'] });
};

async function visit(browser: Browser, url: string): Promise<DocsVisit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(OBSERVE);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const read = (name: string) => page.waitForFunction((n) => (window as unknown as Record<string, number>)[n] || 0, name, { timeout: 30_000 }).then((h) => h.jsonValue());
    const heading = await read('__heading');
    const firstContentfulPaint = await read('__fcp');
    return {
      heading,
      firstContentfulPaint,
      ...(await page.evaluate(() => {
        const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
        let nodes = 0;
        while (walker.nextNode()) nodes++;
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        return { domContentLoaded: nav.domContentLoadedEventEnd, elements: document.getElementsByTagName('*').length, nodes };
      })),
    };
  } finally {
    await context.close();
  }
}

export interface DocsTiming {
  /** Navigation → h1 painted: median, min, max over the runs, ms. */
  median: number;
  min: number;
  max: number;
  runs: number[];
  fcpMedian: number;
  domContentLoadedMedian: number;
  elements: number;
  nodes: number;
}

/** One discarded warm-up visit (the service renders the page on its first request), then `runs`, each in a new context. */
export async function timeFirstHeading(browser: Browser, url: string, runs: number): Promise<DocsTiming> {
  await visit(browser, url);
  const visits: DocsVisit[] = [];
  for (let i = 0; i < runs; i++) visits.push(await visit(browser, url));
  const times = visits.map((v) => v.heading);
  return {
    median: median(times),
    min: Math.min(...times),
    max: Math.max(...times),
    runs: times,
    fcpMedian: median(visits.map((v) => v.firstContentfulPaint)),
    domContentLoadedMedian: median(visits.map((v) => v.domContentLoaded)),
    elements: visits[0]!.elements,
    nodes: visits[0]!.nodes,
  };
}
