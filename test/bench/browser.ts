import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Frame, type Page } from '@playwright/test';
import playwrightConfig from '../../playwright.config';
import { median } from './median';

// Navigation → pay button interactive, in Chromium (the e2e suite's binary and flags).
//
// "Interactive" is the end of the task in which the screen attached its submit handler to
// the payment form: Preact does that while hydrating (widget/screen/client.tsx), and the
// pay button is a submit button of that form, so from then on a click pays. An init script
// (Playwright injects it into every frame, outside the page's CSP) notes the moment, in
// epoch milliseconds, so the widget's cross-origin frame and the merchant page share a clock.
// Each run is a new browser context: an empty cache, like a customer's first visit.

const MARK_INTERACTIVE = () => {
  const w = window as unknown as { __interactiveAt?: number };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, ...args: Parameters<EventTarget['addEventListener']>) {
    if (args[0] === 'submit' && this instanceof HTMLFormElement && w.__interactiveAt === undefined) {
      w.__interactiveAt = 0;
      // Posted now, delivered once the hydrating task has finished.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => (w.__interactiveAt = performance.timeOrigin + performance.now());
      channel.port2.postMessage(null);
    }
    return add.apply(this, args);
  };
};

export interface Merchant {
  origin: string;
  /** Serves a page that mounts the widget inline from `checkoutOrigin`; returns its URL. */
  widgetPage(path: string, checkoutOrigin: string, token: string): string;
  close(): Promise<void>;
}

/**
 * The merchant's site on another origin (and site: `localhost` against the service's
 * 127.0.0.1), so the frame runs cross-site, as on a real shop.
 */
export async function startMerchant(): Promise<Merchant> {
  const pages = new Map<string, string>();
  const server = createServer((req, res) => {
    const html = pages.get(req.url ?? '');
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    widgetPage(path, checkoutOrigin, token) {
      pages.set(
        path,
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>' +
          "<script>document.addEventListener('checkout:ready', () => { window.__readyAt = performance.timeOrigin + performance.now(); });</script>" +
          `</head><body><h1>Your order</h1><div data-checkout-token="${token}"></div>` +
          `<script src="${checkoutOrigin}/widget.js" async></script></body></html>`,
      );
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Visit {
  /** Navigation start → pay button interactive, ms. */
  interactive: number;
  /** Widget only: navigation start → the merchant page receives `checkout:ready`, ms. */
  ready?: number;
  /** Requests started before the page was interactive (document, scripts, styles, frame …). */
  requests: string[];
}

const readMark = (frame: Frame) =>
  frame.waitForFunction(() => (window as unknown as { __interactiveAt?: number }).__interactiveAt || 0, null, { timeout: 15_000 }).then((h) => h.jsonValue());

async function checkoutFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().includes('/pay/'));
    if (frame) return frame;
    if (Date.now() > deadline) throw new Error('the checkout frame never appeared');
    await page.waitForTimeout(5);
  }
}

async function visit(browser: Browser, url: string, framed: boolean): Promise<Visit> {
  const context = await browser.newContext();
  try {
    await context.addInitScript(MARK_INTERACTIVE);
    const started: { url: string; at: number }[] = [];
    const failed: string[] = [];
    context.on('request', (r) => started.push({ url: r.url(), at: Date.now() }));
    context.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) failed.push(`${r.status()} ${r.url()}`);
    });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    const interactiveAt = await readMark(framed ? await checkoutFrame(page) : page.mainFrame()).catch((err: Error) => {
      // Typically a rebuild of dist/ while the service ran: its pages name assets that are gone.
      throw failed.length ? new Error(`${url} never became interactive; failed requests: ${failed.join(', ')}`) : err;
    });
    const origin = await page.evaluate(() => performance.timeOrigin);
    const ready = framed
      ? await page.waitForFunction(() => (window as unknown as { __readyAt?: number }).__readyAt || 0).then((h) => h.jsonValue())
      : undefined;
    return {
      interactive: interactiveAt - origin,
      ...(ready ? { ready: ready - origin } : {}),
      requests: started.filter((r) => r.at <= interactiveAt).map((r) => r.url),
    };
  } finally {
    await context.close();
  }
}

export interface Timing {
  /** Median over the runs, ms. */
  median: number;
  min: number;
  max: number;
  readyMedian?: number;
  /** Requests before interactive, in the median run. */
  requests: string[];
  runs: number[];
}

/** One discarded warm-up visit (browser and server caches, JIT), then `runs` measured ones. */
export async function timeInteractive(browser: Browser, url: string, framed: boolean, runs: number): Promise<Timing> {
  await visit(browser, url, framed);
  const visits: Visit[] = [];
  for (let i = 0; i < runs; i++) visits.push(await visit(browser, url, framed));
  const times = visits.map((v) => v.interactive);
  const mid = median(times);
  const closest = visits.reduce((a, b) => (Math.abs(b.interactive - mid) < Math.abs(a.interactive - mid) ? b : a));
  const ready = visits.flatMap((v) => (v.ready === undefined ? [] : [v.ready]));
  return {
    median: mid,
    min: Math.min(...times),
    max: Math.max(...times),
    ...(ready.length ? { readyMedian: median(ready) } : {}),
    requests: closest.requests,
    runs: times,
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch(playwrightConfig.use?.launchOptions);
}
