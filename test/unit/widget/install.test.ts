// Loading /widget.js into a page, with a fake window: origin discovery, the load-twice
// guard, the inline snippet's queue and declarative elements.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { CheckoutApi, CheckoutStub } from '../../../widget/embed/checkout';
import { install } from '../../../widget/embed/install';

const CHECKOUT = 'https://checkout.example';
const SNIPPET = readFileSync(new URL('../../../widget/embed/snippet.js', import.meta.url), 'utf8');

type Placeholder = { dataset: Record<string, string | undefined>; parentNode?: unknown; nodeType: 1 };
const placeholder = (token?: string, language?: string): Placeholder => ({
  dataset: { checkoutToken: token, language },
  nodeType: 1,
});

function fakePage({ readyState = 'complete', scriptSrc = `${CHECKOUT}/widget.js` as string | null, scripts = [] as { src: string }[] } = {}) {
  const placeholders: Placeholder[] = [];
  const listeners: Record<string, () => void> = {};
  let observed: ((records: { addedNodes: unknown[] }[]) => void) | undefined;
  const document = {
    readyState,
    currentScript: scriptSrc ? { src: scriptSrc } : null,
    documentElement: {},
    querySelectorAll: (selector: string) => (selector === '[data-checkout-token]' ? placeholders : []),
    // The first script whose src contains the text of a `script[src*="…"]` selector (the
    // only kind of selector the loader asks querySelector).
    querySelector: (selector: string) => {
      const text = /^script\[src\*="([^"]+)"\]$/.exec(selector)?.[1];
      if (text === undefined) throw new Error(`unexpected selector ${selector}`);
      return scripts.find((s) => s.src.includes(text)) ?? null;
    },
    addEventListener: (type: string, listener: () => void) => (listeners[type] = listener),
  };
  const win = {
    document,
    MutationObserver: class {
      constructor(callback: typeof observed) {
        observed = callback;
      }
      observe() {}
    },
  } as unknown as Parameters<typeof install>[0] & { Checkout?: CheckoutApi | CheckoutStub };
  const api = { version: 1 as const, mount: vi.fn(() => ({ destroy() {} })), open: vi.fn(() => ({ close() {}, destroy() {} })) };
  const factory = vi.fn(() => api);
  return {
    win,
    document,
    api,
    factory,
    placeholders,
    fire: (type: string) => listeners[type]?.(),
    mutate: (...addedNodes: unknown[]) => observed?.([{ addedNodes }]),
  };
}

describe('the checkout origin', () => {
  it('is the origin of the running script', () => {
    const page = fakePage({ scriptSrc: `${CHECKOUT}/widget.1a2b3c4d.js`, scripts: [{ src: 'https://other.example/widget.js' }] });
    install(page.win, page.factory);
    expect(page.factory).toHaveBeenCalledWith(CHECKOUT);
  });

  it('falls back to the widget script tag when currentScript is null, ignoring look-alikes', () => {
    const scripts = [
      { src: 'https://cdn.example/chat-widget.js' },
      { src: 'https://cdn.example/widgets/carousel.js' },
      { src: `${CHECKOUT}/widget.js?v=2` },
    ];
    const page = fakePage({ scriptSrc: null, scripts });
    install(page.win, page.factory);
    expect(page.factory).toHaveBeenCalledWith(CHECKOUT);
  });

  it('falls back to a versioned copy too', () => {
    const page = fakePage({ scriptSrc: null, scripts: [{ src: `${CHECKOUT}/widget.1a2b3c4d.js` }] });
    install(page.win, page.factory);
    expect(page.factory).toHaveBeenCalledWith(CHECKOUT);
  });
});

describe('install', () => {
  it('creates the API for the checkout origin the script came from', () => {
    const page = fakePage();
    install(page.win, page.factory);
    expect(page.factory).toHaveBeenCalledWith(CHECKOUT);
    expect(page.win.Checkout).toBe(page.api);
  });

  it('does nothing when a copy is already loaded: no second API, no second mount', () => {
    const page = fakePage();
    page.placeholders.push(placeholder('tok'));
    install(page.win, page.factory);
    install(page.win, page.factory);
    expect(page.factory).toHaveBeenCalledTimes(1);
    expect(page.api.mount).toHaveBeenCalledTimes(1);
  });

  it('mounts every data-checkout-token element with its language, skipping empty tokens', () => {
    const page = fakePage();
    const [a, b, empty] = [placeholder('tok-a', 'fr'), placeholder('tok-b'), placeholder('')];
    page.placeholders.push(a, b, empty);
    install(page.win, page.factory);
    expect(page.api.mount.mock.calls).toEqual([
      [a, { token: 'tok-a', language: 'fr' }],
      [b, { token: 'tok-b', language: undefined }],
    ]);
  });

  it('waits for DOMContentLoaded when loaded before the document is parsed', () => {
    const page = fakePage({ readyState: 'loading' });
    page.placeholders.push(placeholder('tok'));
    install(page.win, page.factory);
    expect(page.api.mount).not.toHaveBeenCalled();
    page.fire('DOMContentLoaded');
    expect(page.api.mount).toHaveBeenCalledTimes(1);
  });

  it('mounts elements added later, once', () => {
    const page = fakePage();
    install(page.win, page.factory);
    const late = { ...placeholder('late'), parentNode: page.document };
    page.placeholders.push(late);
    page.mutate(late);
    page.mutate(late);
    expect(page.api.mount.mock.calls).toEqual([[late, { token: 'late', language: undefined }]]);
  });

  it('replays, in order, the calls the inline snippet queued before the script arrived', () => {
    const page = fakePage();
    new Function('window', SNIPPET)(page.win);
    const stub = page.win.Checkout as CheckoutStub;
    const element = {} as HTMLElement;
    expect(stub.mount(element, { token: 'one' })).toBeUndefined();
    stub.open({ token: 'two' });
    install(page.win, page.factory);
    expect(page.api.mount).toHaveBeenCalledWith(element, { token: 'one' });
    expect(page.api.open).toHaveBeenCalledWith({ token: 'two' });
    expect(page.api.mount.mock.invocationCallOrder[0]).toBeLessThan(page.api.open.mock.invocationCallOrder[0]!);
  });

  it('a queued call that throws (its element is not there) stops neither the declarative elements nor the watch for later ones', () => {
    const page = fakePage();
    new Function('window', SNIPPET)(page.win);
    (page.win.Checkout as CheckoutStub).mount(null as unknown as HTMLElement, { token: 'missing' });
    page.api.mount.mockImplementation(((element: unknown) => {
      if (!element) throw new TypeError("Cannot read properties of null (reading 'replaceChildren')");
      return { destroy() {} };
    }) as () => { destroy(): void });
    const declared = placeholder('declared');
    page.placeholders.push(declared);
    expect(() => install(page.win, page.factory)).toThrow(TypeError);
    expect(page.api.mount).toHaveBeenCalledWith(declared, { token: 'declared', language: undefined });
    const late = placeholder('late');
    page.placeholders.push(late);
    page.mutate(late);
    expect(page.api.mount).toHaveBeenCalledWith(late, { token: 'late', language: undefined });
  });

  it('keeps the inline snippet idempotent and small', () => {
    const page = fakePage();
    new Function('window', SNIPPET)(page.win);
    const stub = page.win.Checkout;
    new Function('window', SNIPPET)(page.win);
    expect(page.win.Checkout).toBe(stub);
    expect(SNIPPET.length).toBeLessThan(300);
  });

  it('is published verbatim in docs/widget.md', () => {
    const readme = readFileSync(new URL('../../../docs/widget.md', import.meta.url), 'utf8');
    expect(readme).toContain(`<script>${SNIPPET.trim()}</script>`);
  });
});
