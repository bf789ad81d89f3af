import type { Frame, FrameLocator, Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { payToken } from '../api/pay';
import { readmeBlock } from '../readme';
import { axeViolations } from './axe';
import { CARDS, expect, type Merchant, type Service, test, typeCardWithKeyboard, returnTo } from './fixtures';
import { startArgs } from '../server-bundle';

// The widget on a stand-in merchant site (http://127.0.0.1:…) loading /widget.js from the
// service (http://localhost:…): a real cross-origin embed. A second site on another port,
// `stranger`, is a third origin: an ad frame forging messages, or a shop that may not embed.

const EVENT_TYPES = ['checkout:ready', 'checkout:resize', 'checkout:completed', 'checkout:cancelled', 'checkout:error'];
const QUEUE_SNIPPET = readFileSync('widget/embed/snippet.js', 'utf8').trim();

interface Recorded {
  type: string;
  detail: Record<string, unknown>;
}

/**
 * Records every widget event (they bubble to document) in window.events, and in
 * sessionStorage so the list survives the top window's move to return_url.
 */
const RECORDER = `<script>
window.events = [];
// Every navigation the page starts: the Navigation API fires 'navigate' synchronously inside
// location.assign, so a redirect made in the same task as an event is recorded with it.
window.navigations = [];
navigation.addEventListener('navigate', (event) => navigations.push(event.destination.url));
for (const type of ${JSON.stringify(EVENT_TYPES)}) {
  document.addEventListener(type, (event) => {
    events.push({ type, detail: event.detail });
    sessionStorage.setItem('events', JSON.stringify(events));
  });
}
</script>`;

function shopHtml(body: string, head = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>' +
    `${RECORDER}${head}</head><body><main><h1>Shop</h1>${body}</main></body></html>`
  );
}

// Each test opens its own shop page (a fresh path on the worker's merchant site) and makes
// its own transactions, so the two workers split the file (it runs last, and alone it kept
// one worker busy for a minute after the other had finished).
test.describe.configure({ mode: 'parallel' });

let pageCount = 0;
/** Serves a shop page on the merchant origin at a fresh path and opens it. */
async function openShop(page: Page, merchant: Merchant, body: string, head = ''): Promise<string> {
  const url = merchant.page(`/shop-${++pageCount}`, shopHtml(body, head));
  await page.goto(url);
  return url;
}

const widgetScript = (service: Service, extra = 'async') => `<script src="${service.url}/widget.js" ${extra}></script>`;

function order(merchant: Merchant, over: Record<string, unknown> = {}) {
  return {
    currency: 'EUR',
    order_id: 'W-1',
    gateway_selected: true,
    return_url: `${merchant.origin}/return?order=W-1`,
    cancel_url: `${merchant.origin}/cancel?order=W-1`,
    products: [{ amount: 2, product: { name: 'Coffee beans 250 g', price: 8.5 } }],
    ...over,
  };
}

const checkoutFrame = (page: Page): FrameLocator => page.frameLocator('iframe[src*="/pay/"]');

async function checkoutFrameHandle(page: Page): Promise<Frame> {
  const handle = await page.locator('iframe[src*="/pay/"]').elementHandle();
  const frame = await handle!.contentFrame();
  return frame!;
}

async function fillCard(scope: Pick<Page, 'locator'>, number: string) {
  await scope.locator('input[autocomplete="cc-number"]').fill(number);
  await scope.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await scope.locator('input[autocomplete="cc-csc"]').fill('123');
  await scope.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
}

const payButton = (scope: Pick<Page, 'locator'>) => scope.locator('button[name="action"][value="pay"]');
const cancelButton = (scope: FrameLocator) => scope.locator('button[name="action"][value="cancel"]');

const events = (page: Page): Promise<Recorded[]> => page.evaluate(() => (window as unknown as { events: Recorded[] }).events);
const eventTypes = async (page: Page) => (await events(page)).map((e) => e.type);
/** Events recorded before the top window navigated away (same origin, same tab). */
const storedEvents = async (page: Page): Promise<Recorded[]> =>
  JSON.parse((await page.evaluate(() => sessionStorage.getItem('events'))) ?? '[]');

async function waitForEvent(page: Page, type: string) {
  await expect.poll(async () => (await eventTypes(page)).includes(type), { message: `waiting for ${type}` }).toBe(true);
}

/** Frames that Chromium replaced with its error page (a refused frame-ancestors). */
const refusedFrames = (page: Page) => page.frames().filter((f) => f.url().startsWith('chrome-error://')).length;

const iframeHeight = (page: Page) =>
  page.locator('iframe[src*="/pay/"]').evaluate((el) => el.getBoundingClientRect().height);

async function transactionStatus(service: Service, id: string): Promise<string> {
  return (await service.api('GET', `/transaction/${id}/`)).body.status;
}

/** Live `message` listeners on the page's window, straight from the DevTools protocol. */
async function messageListeners(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId! });
    return listeners.filter((l) => l.type === 'message').length;
  } finally {
    await cdp.detach();
  }
}

test.describe('inline', () => {
  test('declarative element pays with 4242: one checkout:completed, then return_url', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(
      page,
      merchant,
      `<div data-checkout-token="${tx.token}"><a href="${tx.payment_url}">Pay</a></div>`,
      widgetScript(service),
    );
    // The fallback link is replaced by the frame, titled for assistive technology, without a
    // scrollbar of its own (it takes its content's height).
    await expect(page.locator('[data-checkout-token] a')).toHaveCount(0);
    await expect(page.locator('iframe[src*="/pay/"]')).toHaveAttribute('title', 'Checkout');
    await expect(page.locator('iframe[src*="/pay/"]')).toHaveAttribute('scrolling', 'no');
    const frame = checkoutFrame(page);
    await expect(frame.locator('html')).toHaveClass(/embed/);
    await fillCard(frame, CARDS.approved);
    await payButton(frame).click();

    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
    expect(merchant.arrivals).toEqual([expect.stringMatching(returnTo('/return?order=W-1'))]);
    const recorded = await storedEvents(page);
    const completed = recorded.filter((e) => e.type === 'checkout:completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.detail).toEqual({
      type: 'checkout:completed',
      version: 1,
      transaction_id: tx.id,
      status: 'D',
      order_id: 'W-1',
      redirect: expect.stringMatching(returnTo(`${merchant.origin}/return?order=W-1`)),
    });
    expect(recorded.map((e) => e.type)).toContain('checkout:ready');
    // Nothing the customer typed ever reaches the merchant's page.
    const all = JSON.stringify(recorded);
    for (const secret of ['4242', '12/34', 'Ada Lovelace']) expect(all).not.toContain(secret);
    expect(await transactionStatus(service, tx.id)).toBe('D');
  });

  for (const how of ['onComplete returns false', 'a listener calls preventDefault()'] as const) {
    test(`stays on the page when ${how}`, async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(order(merchant));
      const stay =
        how === 'onComplete returns false'
          ? `Checkout.mount(el, { token: ${JSON.stringify(tx.token)}, onComplete: (m) => { window.completedCalls = (window.completedCalls || 0) + 1; return false; } });`
          : `Checkout.mount(el, { token: ${JSON.stringify(tx.token)} }); el.addEventListener('checkout:completed', (e) => e.preventDefault());`;
      const url = await openShop(
        page,
        merchant,
        `<div id="pay"></div>`,
        `${widgetScript(service, '')}<script>addEventListener('DOMContentLoaded', () => { const el = document.getElementById('pay'); ${stay} });</script>`,
      );
      const frame = checkoutFrame(page);
      await fillCard(frame, CARDS.approved);
      await payButton(frame).click();
      // The frame shows the result itself.
      await expect(frame.getByRole('heading', { name: /payment complete/i })).toBeVisible();
      await waitForEvent(page, 'checkout:completed');
      // The loader redirects in the task that dispatches the event: had it redirected, the
      // navigation would already be recorded when the event is.
      expect(await page.evaluate(() => (window as any).navigations)).toEqual([]);
      expect(page.url()).toBe(url);
      expect(merchant.arrivals).toEqual([]);
      expect((await eventTypes(page)).filter((t) => t === 'checkout:completed')).toHaveLength(1);
      if (how === 'onComplete returns false') expect(await page.evaluate(() => (window as any).completedCalls)).toBe(1);
      expect(await transactionStatus(service, tx.id)).toBe('D');
    });
  }

  test('cancel inside the frame: checkout:cancelled, then cancel_url', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    // Cancelling asks to confirm first (the same button name and value on both steps).
    await cancelButton(checkoutFrame(page)).click();
    await expect(checkoutFrame(page).getByRole('heading', { name: 'Cancel this payment?' })).toBeVisible();
    await cancelButton(checkoutFrame(page)).click();
    await toShop(returnTo(`${merchant.origin}/cancel?order=W-1`));
    const cancelled = (await storedEvents(page)).filter((e) => e.type === 'checkout:cancelled');
    expect(cancelled.map((e) => e.detail)).toEqual([
      {
        type: 'checkout:cancelled',
        version: 1,
        transaction_id: tx.id,
        status: 'C',
        order_id: 'W-1',
        redirect: expect.stringMatching(returnTo(`${merchant.origin}/cancel?order=W-1`)),
      },
    ]);
    expect(await transactionStatus(service, tx.id)).toBe('C');
  });

  test('resize follows the content: a declined message grows the frame, never an inner scrollbar', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await waitForEvent(page, 'checkout:ready');
    const frameHandle = await checkoutFrameHandle(page);
    const innerOverflow = () =>
      frameHandle.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight);
    // Sized to its content (not the 150 px default), and the content fits.
    await expect.poll(() => iframeHeight(page)).toBeGreaterThan(300);
    expect(await innerOverflow()).toBeLessThanOrEqual(0);
    const before = await iframeHeight(page);

    const frame = checkoutFrame(page);
    await fillCard(frame, CARDS.declined);
    await payButton(frame).click();
    await expect(frame.getByRole('alert')).toContainText(/declined/i);
    await expect.poll(() => iframeHeight(page)).toBeGreaterThan(before);
    await expect.poll(innerOverflow).toBeLessThanOrEqual(0);

    const recorded = await events(page);
    const error = recorded.find((e) => e.type === 'checkout:error');
    expect(error?.detail).toMatchObject({ type: 'checkout:error', version: 1, code: 'declined' });
    expect(String(error?.detail.message)).toMatch(/declined/i);
    // Heights are posted only when they change.
    const heights = recorded.filter((e) => e.type === 'checkout:resize').map((e) => e.detail.height as number);
    expect(heights.length).toBeGreaterThan(0);
    heights.forEach((h, i) => expect(h).not.toBe(heights[i - 1]));
    expect(Math.abs(heights.at(-1)! - (await iframeHeight(page)))).toBeLessThanOrEqual(1);
    expect(recorded.some((e) => e.type === 'checkout:completed')).toBe(false);
    expect(await transactionStatus(service, tx.id)).toBe('N');
  });

  test('insufficient funds: checkout:error with its code, and the customer can still pay', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    const frame = checkoutFrame(page);
    await fillCard(frame, CARDS.insufficientFunds);
    await payButton(frame).click();
    await expect(frame.getByRole('alert')).toContainText(/insufficient funds/i);
    await waitForEvent(page, 'checkout:error');
    expect((await events(page)).filter((e) => e.type === 'checkout:error').map((e) => e.detail.code)).toEqual(['insufficient_funds']);
    await fillCard(frame, CARDS.approved);
    await payButton(frame).click();
    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
  });

  test('paying before the frame\'s script has run (a plain form post) still reports checkout:completed', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    // Hold the screen's script on the first load, so the customer submits the server's
    // markup as a plain form; the answer's page gets its script.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    await page.route(/\/assets\/client-[^/]+\.js$/, async (route) => {
      if (first) {
        first = false;
        await gate;
      }
      await route.continue().catch(() => {});
    });
    try {
      // Not until "load": that waits for the frame's held script.
      await page.goto(merchant.page(`/shop-${++pageCount}`, shopHtml(`<div data-checkout-token="${tx.token}"></div>`, widgetScript(service))), {
        waitUntil: 'domcontentloaded',
      });
      const frame = checkoutFrame(page);
      await fillCard(frame, CARDS.approved);
      await payButton(frame).click();
      await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
      const recorded = await storedEvents(page);
      expect(recorded.filter((e) => e.type === 'checkout:completed').map((e) => e.detail.redirect)).toEqual([
        expect.stringMatching(returnTo(`${merchant.origin}/return?order=W-1`)),
      ]);
    } finally {
      release();
    }
  });

  test('data-language localises the frame and its title', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}" data-language="fr"></div>`, widgetScript(service));
    await expect(page.locator('iframe[src*="/pay/"]')).toHaveAttribute('title', 'Paiement');
    await expect(checkoutFrame(page).locator('html')).toHaveAttribute('lang', 'fr');
  });

  test('redirect gateway inside the frame: approve on the provider page, then checkout:completed', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    const frame = checkoutFrame(page);
    await frame.getByRole('radio', { name: /sandbox pay/i }).check();
    await payButton(frame).click();
    await frame.getByRole('button', { name: /approve/i }).click();
    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
    const completed = (await storedEvents(page)).filter((e) => e.type === 'checkout:completed');
    expect(completed.map((e) => e.detail.transaction_id)).toEqual([tx.id]);
  });

  test('a paid transaction mounted again reports nothing and stays put (no redirect loop)', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    // Paid through the page's own JSON post, as its screen makes it (test/api/pay.ts), not
    // in Chromium: the subject is the mount that follows.
    expect(await payToken(service.url, tx.token, CARDS.approved)).toBe(200);
    expect(await transactionStatus(service, tx.id)).toBe('D');

    const url = await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await waitForEvent(page, 'checkout:ready');
    await expect(checkoutFrame(page).getByRole('heading', { name: /payment complete/i })).toBeVisible();
    // Sentinel: the frame would report a paid state in the task that posts ready; its first
    // resize is posted after that task (ResizeObserver runs at rendering) and the loader always
    // applies the first one. Messages from one window arrive in order, so once the height is
    // set, a report made at start would already have been handled (event and redirect).
    await expect.poll(() => page.locator('[data-checkout-token] iframe').evaluate((el) => (el as HTMLIFrameElement).style.height)).not.toBe('');
    expect(await page.evaluate(() => (window as any).navigations)).toEqual([]);
    expect(page.url()).toBe(url);
    expect(await eventTypes(page)).not.toContain('checkout:completed');
  });
});

test.describe('overlay', () => {
  // The loader puts one transparent frame over the page; the frame's page draws the dialog
  // (title, close button, focus kept inside, Escape) and asks the loader to close.
  const OVERLAY = 'iframe[name="checkout-overlay"]';

  async function openOverlayShop(page: Page, service: Service, merchant: Merchant, token: string) {
    await openShop(
      page,
      merchant,
      `<p>Ceramic mug, 12.00 €</p><button type="button" id="buy">Buy now</button>`,
      `${widgetScript(service)}<script>
        window.closeCount = 0;
        // Every element of the page that takes focus while the overlay is open and is not its frame.
        window.focusOutside = [];
        document.addEventListener('focusin', (event) => {
          const open = document.querySelector(${JSON.stringify(OVERLAY)});
          if (open && event.target !== open) focusOutside.push(event.target.id || event.target.tagName);
        }, true);
        addEventListener('DOMContentLoaded', () => document.getElementById('buy').addEventListener('click', () => {
          window.overlay = Checkout.open({ token: ${JSON.stringify(token)}, onClose: () => window.closeCount++ });
        }));
      </script>`,
    );
    await page.waitForFunction(() => (window as any).Checkout?.version === 1);
  }

  const overlayFrame = (page: Page) => page.frameLocator(OVERLAY);
  const dialog = (page: Page, name = 'Checkout') => overlayFrame(page).getByRole('dialog', { name });
  const closeButton = (page: Page, name = 'Close') => dialog(page).getByRole('button', { name });
  /** What has focus inside the checkout frame (its autocomplete or type), or null. */
  const focusInFrame = (frame: Frame) =>
    frame.evaluate(() =>
      document.hasFocus() ? (document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.getAttribute('type') ?? null) : null,
    );
  /**
   * Where focus is once it has come to rest after a key press. The checkout frame is
   * cross-origin, so it runs in another renderer process, and Chromium moves focus into or
   * out of it as a hand-off between the two; keyboard.press can return inside that gap. So
   * focus is judged only once an element holds it: in the page, an element other than
   * <body>, and if it is the overlay's <iframe>, an element of the frame's document that has
   * focus (not its <body>, not one of the dialog's guards, which pass focus on at once). If
   * focus never comes to rest, the poll fails.
   */
  async function settledFocus(page: Page, frame: Frame) {
    let focus = { inDialog: false, label: null as string | null, inFrame: null as string | null };
    await expect
      .poll(
        async () => {
          const inPage = await page.evaluate((selector) => {
            const active = document.activeElement;
            return { resting: !!active && active !== document.body, isOverlay: !!active?.matches(selector) };
          }, OVERLAY);
          if (!inPage.resting) return false;
          if (!inPage.isOverlay) {
            focus = { inDialog: false, label: null, inFrame: null };
            return true;
          }
          const inFrame = await frame.evaluate(() => {
            const active = document.activeElement;
            return {
              resting: document.hasFocus() && !!active && active !== document.body && active.tagName !== 'SPAN',
              inDialog: !!active?.closest('[role="dialog"]'),
              label: active?.getAttribute('aria-label') ?? null,
              control: active?.getAttribute('autocomplete') ?? active?.getAttribute('type') ?? null,
            };
          });
          focus = { inDialog: inFrame.inDialog, label: inFrame.label, inFrame: inFrame.label ? null : inFrame.control };
          return inFrame.resting;
        },
        { message: 'focus comes to rest on an element after the key press' },
      )
      .toBe(true);
    return focus;
  }

  /**
   * Presses a key whose key-down closes the overlay: the key-up comes after, on the page.
   * The key-down is not awaited: Chromium can tear the frame down before the frame has
   * acknowledged the key (its message to the page overtakes the acknowledgement), and then
   * keyboard.down never settles (1 run in 2 hung for 30 s). What the test waits for is what
   * a person sees: the overlay gone.
   */
  async function pressClosing(page: Page, key: string) {
    void page.keyboard.down(key).catch(() => undefined);
    await expect(page.locator(OVERLAY)).toHaveCount(0);
    await page.keyboard.up(key);
  }

  test('opens as a modal, keeps Tab inside, closes with Escape and the close button, and returns focus', async ({ page, service, merchant }) => {
    // About fifty key presses, each awaited until focus settles: 8 s in a CI run, over 30 s
    // on a machine loaded with other suites (seen at a load average of 9+).
    test.setTimeout(60_000);
    const tx = await service.createTransaction(order(merchant));
    await openOverlayShop(page, service, merchant, tx.token);
    const opener = page.getByRole('button', { name: 'Buy now' });
    await opener.focus();
    await page.keyboard.press('Enter');

    await expect(dialog(page)).toBeVisible();
    await expect(closeButton(page)).toBeFocused();
    await waitForEvent(page, 'checkout:ready');
    // One frame over the whole viewport, above the page; the page behind does not scroll.
    const viewport = page.viewportSize()!;
    expect(await page.locator(OVERLAY).boundingBox()).toEqual({ x: 0, y: 0, width: viewport.width, height: viewport.height });
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).toBe('hidden');
    // The page behind is inert, for a screen reader's virtual cursor as for the keyboard: its
    // accessibility tree shows only the checkout's frame.
    expect(await page.evaluate(() => document.body.inert)).toBe(true);
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { ignored: boolean; name?: { value?: string } }[] };
    expect(nodes.filter((n) => !n.ignored && n.name?.value === 'Buy now')).toEqual([]);
    await cdp.detach();

    // Forward through the close button, every control in the frame, and around again.
    const frame = await checkoutFrameHandle(page);
    const seen = new Set<string>();
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press('Tab');
      const { inDialog, label, inFrame } = await settledFocus(page, frame);
      expect(inDialog, `after Tab ${i + 1}`).toBe(true);
      seen.add(inFrame ? `frame:${inFrame}` : (label ?? '?'));
    }
    expect(seen).toContain('Close');
    expect(seen).toContain('frame:cc-number');
    expect(seen).toContain('frame:submit');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Shift+Tab');
      expect((await settledFocus(page, frame)).inDialog, `after Shift+Tab ${i + 1}`).toBe(true);
    }
    // Nothing outside the overlay took focus at any moment, not only at the moments looked at.
    expect(await page.evaluate(() => (window as any).focusOutside)).toEqual([]);

    // Escape while typing in the screen closes the overlay. The frame reports the key-down
    // and the page removes the frame at once; keyboard.press would send the key-up straight
    // after, to the frame being torn down, which never acknowledges it. A person's key comes
    // up after the overlay has gone, on the page; so does this one.
    for (let i = 0; i < 15 && (await settledFocus(page, frame)).inFrame !== 'cc-number'; i++) await page.keyboard.press('Tab');
    expect(await focusInFrame(frame)).toBe('cc-number');
    await pressClosing(page, 'Escape');
    await expect(opener).toBeFocused();
    expect(await page.evaluate(() => (window as any).closeCount)).toBe(1);
    expect(await page.evaluate(() => document.documentElement.style.overflow)).toBe('');
    expect(await page.evaluate(() => document.body.inert)).toBe(false);
    expect(await page.locator('iframe').count()).toBe(0);

    // Escape on the close button too.
    await page.keyboard.press('Enter');
    await expect(closeButton(page)).toBeFocused();
    await pressClosing(page, 'Escape');
    await expect(opener).toBeFocused();
    // And the close button, from the keyboard.
    await page.keyboard.press('Enter');
    await expect(closeButton(page)).toBeFocused();
    await pressClosing(page, 'Enter');
    await expect(opener).toBeFocused();
    expect(await page.evaluate(() => (window as any).closeCount)).toBe(3);
    expect(await page.evaluate(() => (window as any).focusOutside)).toEqual([]);
    expect(await transactionStatus(service, tx.id)).toBe('N');
  });

  /** Opens the overlay on a new transaction; resolves with the frame once the screen is ready. */
  async function openOverlayReady(page: Page, service: Service, merchant: Merchant) {
    const tx = await service.createTransaction(order(merchant));
    await openOverlayShop(page, service, merchant, tx.token);
    await page.getByRole('button', { name: 'Buy now' }).click();
    await waitForEvent(page, 'checkout:ready');
    const frame = await checkoutFrameHandle(page);
    await expect(checkoutFrame(page).getByRole('button', { name: 'Cancel payment' })).toBeVisible();
    return frame;
  }

  /** Whether the checkout frame's focused element is its "Cancel payment" button. */
  const cancelFocused = (frame: Frame) =>
    frame.evaluate(() => document.activeElement?.matches('button[name="action"][value="cancel"]') ?? false);

  test('opening hands focus to the frame, whose page focuses Close first', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    // Every element that takes focus, in the page and in every frame from its first script on.
    await page.addInitScript(() => {
      (window as any).focusTrail = [];
      document.addEventListener(
        'focusin',
        (e) => (window as any).focusTrail.push((e.target as Element).getAttribute('aria-label') ?? (e.target as Element).tagName),
        true,
      );
    });
    await openOverlayShop(page, service, merchant, tx.token);
    await page.getByRole('button', { name: 'Buy now' }).click();
    await waitForEvent(page, 'checkout:ready');
    await expect(closeButton(page)).toBeFocused();
    // The shop's own button, then only the overlay's frame (Chromium fires focusin on it
    // again as its document takes focus); in the frame, Close and nothing before it.
    const trail: string[] = await page.evaluate(() => (window as any).focusTrail);
    expect(trail[0]).toBe('BUTTON');
    expect(new Set(trail.slice(1))).toEqual(new Set(['IFRAME']));
    const frame = await checkoutFrameHandle(page);
    expect(await frame.evaluate(() => (window as any).focusTrail)).toEqual(['Close']);
  });

  test('Shift+Tab from Close goes straight to the last control in the frame, Tab from it back to Close', async ({ page, service, merchant }) => {
    const frame = await openOverlayReady(page, service, merchant);
    // The last control Tab reaches in the screen (the dialog's content, after its title bar)
    // is its "Cancel payment" button.
    expect(
      await frame.evaluate(() => {
        const content = document.querySelector('[role="dialog"]')!;
        const all = [...content.querySelectorAll<HTMLElement>('a[href],button,input,select,textarea,[tabindex]')];
        const last = all.filter((el) => el.tabIndex >= 0 && !el.matches(':disabled') && el.getClientRects().length && el.tagName !== 'SPAN').at(-1);
        return last?.textContent?.trim();
      }),
    ).toBe('Cancel payment');
    await expect(closeButton(page)).toBeFocused();
    await page.evaluate(() => {
      // Every element that takes focus from here on, in the page.
      (window as any).focusTrail = [];
      document.addEventListener('focusin', (e) => (window as any).focusTrail.push((e.target as Element).tagName));
    });
    await frame.evaluate(() => {
      (window as any).focusTrail = [];
      document.addEventListener('focusin', (e) => (window as any).focusTrail.push((e.target as Element).textContent?.trim() || (e.target as Element).tagName));
    });

    await page.keyboard.press('Shift+Tab');
    // One key press: focus comes to rest on "Cancel payment", visibly, with nothing in between
    // (the dialog's guard before Close hands focus on from its own focus handler).
    await expect.poll(() => cancelFocused(frame), { message: 'Cancel payment takes focus' }).toBe(true);
    const { inDialog, inFrame } = await settledFocus(page, frame);
    expect(inDialog).toBe(true);
    expect(inFrame).toBe('submit');
    expect(await cancelFocused(frame)).toBe(true);
    expect(await frame.evaluate(() => document.activeElement!.matches(':focus-visible'))).toBe(true);
    expect((await frame.evaluate(() => (window as any).focusTrail)).filter((t: string) => t !== 'SPAN')).toEqual(['Cancel payment']);
    // Focus never left the frame: nothing in the page took it.
    expect(await page.evaluate(() => (window as any).focusTrail)).toEqual([]);
    expect(await page.evaluate(() => (window as any).focusOutside)).toEqual([]);

    // And back: Tab from the last control wraps to Close.
    await page.keyboard.press('Tab');
    await expect(closeButton(page)).toBeFocused();
    expect(await page.evaluate(() => (window as any).focusTrail)).toEqual([]);
  });

  // The open overlay as it first shows is also where axe looks (it moves no focus: Close
  // is still focused after it, as the test goes on to check).
  test('axe finds nothing on the open overlay; checkout:focus-last (for older loaders) is obeyed only from the parent page at its origin', async ({ page, service, merchant, stranger }) => {
    const frame = await openOverlayReady(page, service, merchant);
    await expect(dialog(page).locator('input[autocomplete="cc-number"]')).toBeVisible();
    const violations = await axeViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
    await expect(closeButton(page)).toBeFocused();
    // The frame counts forgeries after the bridge's own listener has seen each one, and
    // reports any focus change (an element focused in an unfocused document still becomes
    // its activeElement).
    await frame.evaluate(() => {
      (window as any).forgeries = 0;
      (window as any).focusTrail = [];
      addEventListener('message', (e) => e.data === 'forgery done' && (window as any).forgeries++);
      document.addEventListener('focusin', (e) => (window as any).focusTrail.push((e.target as Element).tagName));
    });
    const focusLast = { type: 'checkout:focus-last', version: 1 };
    const forger = `<!doctype html><html lang="en"><title>Ad</title><script>
      // The checkout frame is the page's first frame; this one is appended after it.
      const target = parent.frames[0];
      target.postMessage(${JSON.stringify(focusLast)}, '*');
      target.postMessage('forgery done', '*');
    </script></html>`;
    // Sibling frames on the merchant page: a third origin, and the merchant's own origin
    // (right origin, but not the parent window).
    const urls = [
      stranger.page(`/focus-forge-${++pageCount}`, forger),
      merchant.page(`/focus-forge-${++pageCount}`, forger),
    ];
    for (const [i, src] of urls.entries()) {
      await page.evaluate(
        ({ src, i }) => {
          const ad = document.createElement('iframe');
          ad.src = src;
          ad.title = `Ad ${i}`;
          document.body.append(ad);
        },
        { src, i },
      );
      await expect.poll(() => frame.evaluate(() => (window as any).forgeries)).toBe(i + 1);
    }
    // The parent window, but a wrong version or an unknown type; and the frame itself.
    await page.evaluate(
      ({ origin, messages, selector }) => {
        const target = document.querySelector<HTMLIFrameElement>(selector)!.contentWindow!;
        for (const m of messages) target.postMessage(m, origin);
        target.postMessage('forgery done', origin);
      },
      {
        origin: service.url,
        selector: OVERLAY,
        messages: [{ ...focusLast, version: 2 }, { ...focusLast, version: '1' }, { type: 'checkout:focus-first', version: 1 }, JSON.stringify(focusLast)],
      },
    );
    await frame.evaluate((m) => {
      postMessage(m, '*');
      postMessage('forgery done', '*');
    }, focusLast);
    await expect.poll(() => frame.evaluate(() => (window as any).forgeries)).toBe(4);

    expect(await frame.evaluate(() => (window as any).focusTrail)).toEqual([]);
    expect(await cancelFocused(frame)).toBe(false);
    await expect(closeButton(page)).toBeFocused();

    // The same message from the parent at its own origin is obeyed (so the above was a
    // real test of the filter).
    await page.evaluate(
      ({ origin, m, selector }) => document.querySelector<HTMLIFrameElement>(selector)!.contentWindow!.postMessage(m, origin),
      { origin: service.url, m: focusLast, selector: OVERLAY },
    );
    await expect.poll(() => cancelFocused(frame)).toBe(true);
  });

  test('keyboard only: fill the card and pay in the overlay', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    await openOverlayShop(page, service, merchant, tx.token);
    await page.getByRole('button', { name: 'Buy now' }).focus();
    await page.keyboard.press('Enter');
    await waitForEvent(page, 'checkout:ready');
    const frame = await checkoutFrameHandle(page);
    for (let i = 0; i < 15 && (await focusInFrame(frame)) !== 'cc-number'; i++) await page.keyboard.press('Tab');
    await typeCardWithKeyboard(page);
    expect(await focusInFrame(frame)).toBe('submit');
    await page.keyboard.press('Enter');
    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
    expect((await storedEvents(page)).filter((e) => e.type === 'checkout:completed')).toHaveLength(1);
    expect(await transactionStatus(service, tx.id)).toBe('D');
  });

  test('a screen in Spanish (the browser asked for it) gets a Spanish title and close button', async ({ browser, service, merchant }) => {
    const context = await browser.newContext({ locale: 'es-ES' });
    try {
      const page = await context.newPage();
      const tx = await service.createTransaction(order(merchant));
      await openOverlayShop(page, service, merchant, tx.token);
      await page.getByRole('button', { name: 'Buy now' }).click();
      await waitForEvent(page, 'checkout:ready');
      expect((await events(page)).find((e) => e.type === 'checkout:ready')?.detail).toMatchObject({ language: 'es' });
      const spanish = dialog(page, 'Pago');
      await expect(spanish.getByRole('heading', { name: 'Pago' })).toBeVisible();
      await expect(spanish.getByRole('button', { name: 'Cerrar' })).toBeFocused();
      await expect(page.locator(OVERLAY)).toHaveAttribute('title', 'Pago');
      await expect(overlayFrame(page).getByRole('button', { name: 'Close' })).toHaveCount(0);
    } finally {
      await context.close();
    }
  });

  test("Escape in the bank's challenge leaves the challenge, not the overlay", async ({ page, service, merchant }) => {
    await openOverlayReady(page, service, merchant);
    const scope = checkoutFrame(page);
    await fillCard(scope, CARDS.challenged);
    await payButton(scope).click();
    await expect(scope.getByRole('dialog', { name: 'Confirm it is you' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(scope.getByRole('alert')).toContainText('was not confirmed with your bank');
    await expect(dialog(page)).toBeVisible();
    expect(await page.evaluate(() => (window as any).closeCount)).toBe(0);
    expect((await events(page)).filter((e) => e.type === 'checkout:error').map((e) => e.detail.code)).toEqual(['authentication_incomplete']);
  });

  test('a redirect gateway inside the overlay: back from the provider page, the dialog is drawn again around the receipt', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(
      page,
      merchant,
      `<button type="button" id="buy">Buy now</button>`,
      `${widgetScript(service, '')}<script>
        addEventListener('DOMContentLoaded', () => document.getElementById('buy').onclick = () =>
          Checkout.open({ token: ${JSON.stringify(tx.token)}, onComplete: () => false }));
      </script>`,
    );
    await page.getByRole('button', { name: 'Buy now' }).click();
    const scope = checkoutFrame(page);
    await scope.getByRole('radio', { name: /sandbox pay/i }).check();
    await payButton(scope).click();
    // The provider's page, in the same frame (the frame's window keeps its name as it navigates).
    await scope.getByRole('button', { name: /approve/i }).click();
    await waitForEvent(page, 'checkout:completed');
    await expect(dialog(page).getByRole('heading', { name: /payment complete/i })).toBeVisible();
    await expect(closeButton(page)).toBeFocused();
    expect(await transactionStatus(service, tx.id)).toBe('D');
  });

  // The frame is transparent but for the backdrop: a frame whose colour scheme differs from
  // its <iframe>'s would be painted opaque (white, or dark in dark mode), hiding the page.
  // One overlay, looked at in the light scheme and again in the dark one.
  test('the page shows through the backdrop, light and dark scheme', async ({ browser, service, merchant }) => {
    const context = await browser.newContext({ colorScheme: 'light' });
    try {
      const page = await context.newPage();
      const tx = await service.createTransaction(order(merchant));
      await openShop(
        page,
        merchant,
        `<button type="button" id="buy">Buy now</button>`,
        `<style>html { background: #ffcc00 }</style>${widgetScript(service, '')}<script>
          addEventListener('DOMContentLoaded', () => document.getElementById('buy').onclick = () => Checkout.open({ token: ${JSON.stringify(tx.token)} }));
        </script>`,
      );
      await page.getByRole('button', { name: 'Buy now' }).click();
      await waitForEvent(page, 'checkout:ready');
      await expect(dialog(page)).toBeVisible();
      const probe = await context.newPage();
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        // The shop's page and the checkout's frame both in that scheme.
        for (const html of [page.locator('html'), checkoutFrame(page).locator('html')]) {
          expect(await html.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(colorScheme === 'dark');
        }
        // A corner outside the dialog: #ffcc00 under the #0009 backdrop (60 % black).
        const png = (await page.screenshot({ clip: { x: 2, y: 2, width: 1, height: 1 } })).toString('base64');
        const rgb = await probe.evaluate(async (b64) => {
          const img = new Image();
          img.src = `data:image/png;base64,${b64}`;
          await img.decode();
          const canvas = document.createElement('canvas');
          canvas.width = canvas.height = 1;
          const g = canvas.getContext('2d')!;
          g.drawImage(img, 0, 0);
          return [...g.getImageData(0, 0, 1, 1).data].slice(0, 3);
        }, png);
        [102, 82, 0].forEach((value, i) => expect(Math.abs(rgb[i]! - value), `${colorScheme}: channel ${i} of ${rgb}`).toBeLessThanOrEqual(3));
      }
    } finally {
      await context.close();
    }
  });

  test.describe('on a 360 px phone', () => {
    test.use({ viewport: { width: 360, height: 640 } });

    test('the dialog fits the width, scrolls inside the frame, and the page behind stays put', async ({ page, service, merchant }) => {
      const frame = await openOverlayReady(page, service, merchant);
      expect(await page.locator(OVERLAY).boundingBox()).toEqual({ x: 0, y: 0, width: 360, height: 640 });
      const box = await dialog(page).boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
      // Nothing wider than the phone inside the frame, and the screen is taller than it: the
      // dialog scrolls within the frame (the frame itself never shows a scrollbar).
      expect(await frame.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      expect(box!.height).toBeGreaterThan(640);
      const cancel = checkoutFrame(page).getByRole('button', { name: 'Cancel payment' });
      await cancel.scrollIntoViewIfNeeded();
      await expect(cancel).toBeInViewport();
      expect(await page.evaluate(() => scrollY)).toBe(0);
      await expect(closeButton(page)).toBeVisible();
      await closeButton(page).click();
      await expect(page.locator(OVERLAY)).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Buy now' })).toBeFocused();
      expect(await page.evaluate(() => (window as any).closeCount)).toBe(1);
    });
  });

  test('a payment this page may not show: the overlay closes at once and checkout:error says why', async ({ page, service, merchant, stranger }) => {
    const tx = await service.createTransaction(order(merchant));
    // The stranger's page opens a transaction whose return and cancel URLs are the merchant's.
    await openOverlayShop(page, service, stranger, tx.token);
    const opener = page.getByRole('button', { name: 'Buy now' });
    await opener.click();
    await waitForEvent(page, 'checkout:error');
    await expect(page.locator(OVERLAY)).toHaveCount(0);
    await expect(opener).toBeFocused();
    expect(await page.evaluate(() => (window as any).closeCount)).toBe(1);
    expect(await page.evaluate(() => document.documentElement.style.overflow)).toBe('');
    expect((await events(page)).map((e) => e.detail.code)).toEqual(['origin_not_allowed']);
  });
});

test.describe('origins', () => {
  test('a forged message from a third origin, or from another frame of the checkout origin, changes nothing', async ({ page, service, merchant, stranger, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    const forged = {
      type: 'checkout:completed',
      version: 1,
      transaction_id: tx.id,
      status: 'D',
      order_id: 'W-1',
      redirect: `${merchant.origin}/forged`,
    };
    const resize = { type: 'checkout:resize', version: 1, height: 4321 };
    const ad = stranger.page(
      `/forge-${++pageCount}`,
      `<!doctype html><html lang="en"><title>Ad</title><script>
        for (const m of ${JSON.stringify([forged, resize, { type: 'checkout:ready', version: 1 }])}) parent.postMessage(m, '*');
        parent.postMessage('forgery done', '*');
      </script></html>`,
    );
    const url = await openShop(
      page,
      merchant,
      `<div data-checkout-token="${tx.token}"></div><div id="ads"></div>`,
      `${widgetScript(service)}<script>
        window.forgeries = 0;
        addEventListener('message', (e) => { if (e.data === 'forgery done') window.forgeries++; });
      </script>`,
    );
    await waitForEvent(page, 'checkout:ready');
    await expect.poll(() => iframeHeight(page)).toBeGreaterThan(300);
    const height = await iframeHeight(page);
    const before = (await events(page)).length;

    // A frame on a third origin posts a complete, well-formed completed message.
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      frame.title = 'Advertisement';
      document.getElementById('ads')!.append(frame);
    }, ad);
    await expect.poll(() => page.evaluate(() => (window as any).forgeries)).toBe(1);

    // A frame of the checkout origin that is not this widget's frame (here: widget.js opened
    // as a document), and the merchant page itself.
    await page.evaluate((src) => {
      const other = document.createElement('iframe');
      other.src = src;
      other.title = 'Other';
      document.getElementById('ads')!.append(other);
      return new Promise((resolve) => (other.onload = resolve));
    }, `${service.url}/widget.js`);
    const other = page.frames().find((f) => f.url() === `${service.url}/widget.js`)!;
    await other.evaluate((messages) => {
      for (const m of messages) parent.postMessage(m, '*');
      parent.postMessage('forgery done', '*');
    }, [forged, resize]);
    await page.evaluate((messages) => {
      for (const m of messages) postMessage(m, '*');
      postMessage('forgery done', '*');
    }, [forged, resize]);
    await expect.poll(() => page.evaluate(() => (window as any).forgeries)).toBe(3);

    expect((await events(page)).length).toBe(before);
    expect(await iframeHeight(page)).toBe(height);
    // The 'forgery done' sentinels came after the forgeries from the same windows: a redirect
    // the loader had made for one would already be recorded.
    expect(await page.evaluate(() => (window as any).navigations)).toEqual([]);
    expect(page.url()).toBe(url);
    expect(merchant.arrivals).toEqual([]);
    // The real frame still works after all that.
    await fillCard(checkoutFrame(page), CARDS.approved);
    await payButton(checkoutFrame(page)).click();
    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
  });

  test('a page on an origin that is not allowed never gets the payment, only checkout:error origin_not_allowed', async ({ page, service, merchant, stranger }) => {
    const tx = await service.createTransaction(order(merchant));
    const frameResponses: { url: string; csp: string; status: number }[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/pay/')) frameResponses.push({ url: res.url(), csp: res.headers()['content-security-policy'] ?? '', status: res.status() });
    });
    // The loader on the stranger's page (origin=the stranger's), and a hand-made
    // iframe that claims to be the merchant's origin.
    const lying = `${service.url}/pay/${tx.token}/?embed=1&origin=${encodeURIComponent(merchant.origin)}`;
    await page.goto(
      stranger.page(
        `/shop-${++pageCount}`,
        shopHtml(`<div data-checkout-token="${tx.token}"></div><iframe id="lying" title="Lying" src="${lying}"></iframe>`, widgetScript(service)),
      ),
    );
    await expect(page.locator('[data-checkout-token] iframe')).toHaveCount(1);
    await expect.poll(() => frameResponses.length).toBe(2);
    // The stranger's frame is the refusal, framable by the stranger alone; the lying one stays the merchant's.
    const refusal = frameResponses.find((r) => r.url.includes(`origin=${stranger.origin}&`))!;
    expect(refusal.status).toBe(403);
    expect(refusal.csp.split('frame-ancestors ')[1]).toBe(stranger.origin);
    expect(frameResponses.find((r) => r.url === lying)!.csp).toContain(`frame-ancestors ${merchant.origin}`);

    await waitForEvent(page, 'checkout:error');
    expect(await events(page)).toEqual([
      { type: 'checkout:error', detail: { type: 'checkout:error', version: 1, code: 'origin_not_allowed', message: "This payment can't be shown here" } },
    ]);
    // Chromium replaces the lying frame with its error page; the refusal shows a message and nothing to pay with.
    await expect.poll(() => refusedFrames(page)).toBe(1);
    const shown = page.frameLocator('[data-checkout-token] iframe');
    await expect(shown.getByRole('heading', { level: 1 })).toHaveText("This payment can't be shown here");
    expect(await shown.locator('form, input, button').count()).toBe(0);
    expect(await transactionStatus(service, tx.id)).toBe('N');
  });

  test('allowed origins set with the keys command replace the return/cancel URL origins', async ({ page, service, merchant, stranger }) => {
    // A second environment, made with the CLI, that lets only the stranger's origin embed.
    const created = await new Promise<string>((resolve, reject) => {
      const cli = spawn(
        process.execPath,
        [...startArgs('keys-cli'), 'create', '--name', 'Stranger', '--allowed-origin', stranger.origin, '--json'],
        { env: { ...process.env, DATA_DIR: service.dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      cli.stdout.on('data', (c: Buffer) => (out += c.toString()));
      cli.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`keys create exited ${code}`))));
    });
    const keys = JSON.parse(created) as { public_key: string; secret_key: string; allowed_origins: string[] };
    expect(keys.allowed_origins).toEqual([stranger.origin]);
    const res = await fetch(`${service.url}/v1/transaction/`, {
      method: 'POST',
      headers: { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(order(merchant)),
    });
    const tx = (await res.json()) as { token: string };

    await page.goto(stranger.page(`/shop-${++pageCount}`, shopHtml(`<div data-checkout-token="${tx.token}"></div>`, widgetScript(service))));
    await waitForEvent(page, 'checkout:ready');
    await expect(checkoutFrame(page).locator('input[autocomplete="cc-number"]')).toBeVisible();

    // The merchant origin of its return_url is no longer enough: the refusal, never the payment.
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await waitForEvent(page, 'checkout:error');
    expect((await events(page)).map((e) => e.detail.code)).toEqual(['origin_not_allowed']);
    expect(await checkoutFrame(page).locator('input, form').count()).toBe(0);
  });
});

test.describe('errors the widget reports', () => {
  test('an unknown token: checkout:error token_unknown, and the frame says the payment was not found', async ({ page, service, merchant }) => {
    await openShop(page, merchant, '<div data-checkout-token="no-such-token-0123456789"></div>', widgetScript(service));
    await waitForEvent(page, 'checkout:error');
    expect(await events(page)).toEqual([
      { type: 'checkout:error', detail: { type: 'checkout:error', version: 1, code: 'token_unknown', message: 'Payment not found' } },
    ]);
    await expect(checkoutFrame(page).getByRole('heading', { level: 1 })).toHaveText('Payment not found');
  });

  test('an expired link: checkout:error expired, on load and when it expires while open', async ({ page, service, merchant }) => {
    // Expires a few seconds after it is made: the frame loads it open, then sees it expire.
    const tx = await service.createTransaction(order(merchant, { expired_date: new Date(Date.now() + 4000).toISOString() }));
    const onError = `<script>window.errors=[];window.Checkout={q:[["mount",[document.currentScript.previousElementSibling,{token:${JSON.stringify(tx.token)},onError:(m)=>errors.push(m.code)}]]]}</script>`;
    await openShop(page, merchant, `<div id="pay"></div>${onError}`, widgetScript(service));
    await waitForEvent(page, 'checkout:ready');
    await expect.poll(() => eventTypes(page), { timeout: 20_000 }).toContain('checkout:error');
    const errors = (await events(page)).filter((e) => e.type === 'checkout:error');
    expect(errors.map((e) => [e.detail.code, e.detail.message])).toEqual([['expired', 'This payment link has expired']]);
    expect(await page.evaluate(() => (window as unknown as { errors: string[] }).errors)).toEqual(['expired']);
    // Mounted again, it reports the expiry at once.
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await waitForEvent(page, 'checkout:error');
    expect((await events(page)).map((e) => e.type === 'checkout:error' && e.detail.code).filter(Boolean)).toEqual(['expired']);
  });

  // The loader reports a silent frame after 10 s: the page's clock is Playwright's, moved on
  // once the frame has loaded, so the tests wait for no real 10 s.
  test('the checkout cannot be reached: checkout:error network from the loader, with no text of ours', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await page.clock.install();
    // The frame's request fails as a dropped connection would; widget.js itself loads.
    await page.route(`${service.url}/pay/**`, (route) => route.abort('connectionrefused'));
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await expect.poll(() => refusedFrames(page)).toBe(1);
    await page.clock.runFor(9_000);
    expect(await events(page)).toEqual([]);
    await page.clock.runFor(2_000);
    await expect.poll(() => eventTypes(page)).toEqual(['checkout:error']);
    expect((await events(page))[0]!.detail).toEqual({ type: 'checkout:error', version: 1, code: 'network', message: '' });
  });

  test('a frame that answers is never reported as unreachable', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await page.clock.install();
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, widgetScript(service));
    await waitForEvent(page, 'checkout:ready');
    await page.clock.runFor(15_000);
    expect(await eventTypes(page)).not.toContain('checkout:error');
  });
});

test.describe('the README', () => {
  test('quick start 2 as written (host and token filled in) embeds the payment and hears checkout:completed', async ({ page, service, merchant, toShop }) => {
    const tx = await service.createTransaction(order(merchant));
    const html = readmeBlock('html', 'data-checkout-token').replaceAll('https://CHECKOUT_HOST', service.url).replaceAll('TRANSACTION_TOKEN', tx.token);
    const logged: string[] = [];
    page.on('console', (msg) => logged.push(msg.text()));
    await openShop(page, merchant, html);
    const frame = checkoutFrame(page);
    await fillCard(frame, CARDS.approved);
    await payButton(frame).click();
    await toShop(returnTo(`${merchant.origin}/return?order=W-1`));
    expect(logged).toContain(`paid ${tx.id}`);
  });
});

test.describe('loader', () => {
  test('loading the script twice (and its versioned copy) mounts once', async ({ page, service, merchant }) => {
    const manifest = JSON.parse(readFileSync('dist/widget/manifest.json', 'utf8')) as { hash: string; integrity: string };
    const tx = await service.createTransaction(order(merchant));
    const onload = 'onload="window.loads = (window.loads || 0) + 1"';
    await openShop(
      page,
      merchant,
      `<div data-checkout-token="${tx.token}"></div>`,
      widgetScript(service, `async ${onload}`) +
        widgetScript(service, `defer ${onload}`) +
        `<script src="${service.url}/widget.${manifest.hash}.js" integrity="${manifest.integrity}" crossorigin="anonymous" async ${onload}></script>`,
    );
    await expect.poll(() => page.evaluate(() => (window as any).loads)).toBe(3);
    await waitForEvent(page, 'checkout:ready');
    // All three scripts have run (onload follows execution) and the document has loaded (the
    // frame has answered), so every mount that was going to happen has made its iframe.
    expect(await page.locator('iframe').count()).toBe(1);
    expect((await eventTypes(page)).filter((t) => t === 'checkout:ready')).toHaveLength(1);
    expect(await messageListeners(page)).toBe(1);
  });

  test('destroy() removes the frame and its listener', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div id="pay"></div>`, widgetScript(service, ''));
    const baseline = await messageListeners(page);
    await page.evaluate((token) => {
      (window as any).handle = (window as any).Checkout.mount(document.getElementById('pay'), { token });
    }, tx.token);
    await waitForEvent(page, 'checkout:ready');
    expect(await messageListeners(page)).toBe(baseline + 1);
    await page.evaluate(() => (window as any).handle.destroy());
    await expect(page.locator('iframe')).toHaveCount(0);
    expect(await messageListeners(page)).toBe(baseline);
    // Idempotent.
    await page.evaluate(() => (window as any).handle.destroy());
  });

  test('calls queued by the snippet before the script loads are replayed', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(
      page,
      merchant,
      `<div id="pay"></div>
      <script>${QUEUE_SNIPPET}</script>
      <script>
        window.readyCalls = 0;
        Checkout.mount(document.getElementById('pay'), { token: ${JSON.stringify(tx.token)}, onReady: () => window.readyCalls++ });
        window.queued = Checkout.q.length;
      </script>
      ${widgetScript(service)}`,
    );
    expect(await page.evaluate(() => (window as any).queued)).toBe(1);
    await expect.poll(() => page.evaluate(() => (window as any).readyCalls)).toBe(1);
    expect(await page.evaluate(() => (window as any).Checkout.version)).toBe(1);
    await expect(page.locator('#pay iframe')).toHaveCount(1);
    await expect(checkoutFrame(page).locator('input[autocomplete="cc-number"]')).toBeVisible();
  });

  test('loaded as a module (currentScript is null) it finds its origin by its own tag, not a look-alike', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    // Other scripts of the page first: their names contain "widget" too.
    const lookAlikes = ['/chat-widget.js', '/widgets/carousel.js'].map((path) => `<script src="${merchant.origin}${path}" async></script>`).join('');
    await openShop(page, merchant, `<div data-checkout-token="${tx.token}"></div>`, `${lookAlikes}<script type="module" src="${service.url}/widget.js"></script>`);
    await waitForEvent(page, 'checkout:ready');
    expect(await page.evaluate(() => (window as any).Checkout.version)).toBe(1);
    await expect(checkoutFrame(page).locator('input[autocomplete="cc-number"]')).toBeVisible();
    await expect(page.locator('iframe')).toHaveAttribute('src', new RegExp(`^${service.url}/pay/`));
  });

  test('an element added after load (single-page app) is mounted', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    await openShop(page, merchant, `<div id="app"></div>`, widgetScript(service, ''));
    await page.evaluate((token) => {
      const el = document.createElement('div');
      el.dataset.checkoutToken = token;
      document.getElementById('app')!.append(el);
    }, tx.token);
    await waitForEvent(page, 'checkout:ready');
    await expect(page.locator('#app iframe')).toHaveCount(1);
  });
});

test.describe('demo page', () => {
  test('a new user opens /demo/ and pays inline with 4242', async ({ page, service, toShop }) => {
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const res = await page.goto(`${service.url}/demo/`);
    expect(res?.status()).toBe(200);
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).toMatch(/script-src 'nonce-[^']+' 'self'/);
    expect(csp).not.toContain('unsafe-inline');
    await expect(page.getByText('4242 4242 4242 4242')).toBeVisible();
    await expect(page.frameLocator('[data-checkout-token] iframe').locator('input[autocomplete="cc-number"]')).toBeVisible();
    const violations = await axeViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);

    // The overlay opens from the button and closes again.
    await page.getByRole('button', { name: 'Buy the mug' }).click();
    const dialog = page.frameLocator('iframe[name="checkout-overlay"]').getByRole('dialog', { name: 'Checkout' });
    await expect(dialog.locator('input[autocomplete="cc-number"]')).toBeVisible();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page.locator('iframe[name="checkout-overlay"]')).toHaveCount(0);

    const inline = page.frameLocator('[data-checkout-token] iframe');
    await fillCard(inline, CARDS.approved);
    await payButton(inline).click();
    await toShop(returnTo(`${service.url}/demo/?paid=1`));
    await expect(page.getByRole('status')).toContainText(/payment was received/i);
    // The shop verifies the signed return; an altered one is not trusted.
    await expect(page.locator('#return-check')).toContainText('Signed return verified');
    expect(problems).toEqual([]);
    await page.goto(page.url().replace('status=D', 'status=C'));
    await expect(page.locator('#return-check')).toContainText('could not be verified (forged)');
  });

  test('cancelled demo payment says so', async ({ page, service, toShop }) => {
    await page.goto(`${service.url}/demo/`);
    const frame = page.frameLocator('[data-checkout-token] iframe');
    await cancelButton(frame).click();
    await expect(frame.getByRole('heading', { name: 'Cancel this payment?' })).toBeVisible();
    await cancelButton(frame).click();
    await toShop(returnTo(`${service.url}/demo/?cancelled=1`));
    await expect(page.getByRole('heading', { name: 'Payment cancelled' })).toBeVisible();
    // Back at cancel_url without a signed return (the payment page's way back to the shop):
    // nothing says the payment was cancelled, and it was not.
    await page.goto(`${service.url}/demo/?cancelled=1`);
    await expect(page.getByRole('heading', { name: 'No payment was made' })).toBeVisible();
  });

  test('a sign-up that returns to the demo shop is called a subscription there, and verified', async ({ page, service, toShop }) => {
    const plan = await service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14 });
    const sub = await service.api('POST', '/subscription/', { plan: plan.body.id, return_url: `${service.url}/demo/?paid=1` });
    await page.goto(sub.body.payment_url);
    await fillCard(page, CARDS.approved);
    await payButton(page).click();
    await expect(page.getByRole('heading', { name: 'Subscription confirmed' })).toBeVisible();
    await toShop(returnTo(`${service.url}/demo/?paid=1`, 'subscription'));
    await expect(page.getByRole('status')).toContainText('your subscription is confirmed');
    await expect(page.getByRole('status')).not.toContainText(/payment was received/i);
    await expect(page.locator('#return-check')).toContainText(`Signed return verified: subscription ${sub.body.id}, status trialing.`);
  });
});
