// Turns one loaded copy of /widget.js into `window.Checkout`: finds the checkout origin,
// replays calls queued by the inline snippet and mounts declarative elements. Takes the
// window and the API factory as arguments so it can be tested without a browser.

import type { CheckoutApi, CheckoutStub, MountOptions } from './checkout';

interface InstallWindow {
  document: Document;
  MutationObserver: typeof MutationObserver;
  Checkout?: CheckoutApi | CheckoutStub;
}

const SCRIPT_PATH = /\/widget(\.\w+)?\.js(\?|#|$)/;

/**
 * The origin that served this script is the checkout origin. currentScript is null when
 * the loader runs late (e.g. from a bundler's wrapper), so fall back to the script tag.
 */
export function scriptOrigin(doc: Pick<Document, 'currentScript' | 'scripts'>): string {
  const src =
    (doc.currentScript as HTMLScriptElement | null)?.src || [...doc.scripts].find((s) => SCRIPT_PATH.test(s.src))?.src;
  return new URL(src!).origin;
}

export function install(win: InstallWindow, createCheckout: (checkoutOrigin: string) => CheckoutApi): void {
  const previous = win.Checkout;
  // A second copy of the script on the page must not mount everything again.
  if ((previous as CheckoutApi | undefined)?.version) return;
  const doc = win.document;
  const api = (win.Checkout = createCheckout(scriptOrigin(doc)));
  const mounted = new WeakSet<Element>();

  const mountDeclared = () => {
    for (const element of doc.querySelectorAll<HTMLElement>('[data-checkout-token]')) {
      const { checkoutToken: token, language } = element.dataset;
      if (token && !mounted.has(element)) {
        mounted.add(element);
        api.mount(element, { token, language: language as MountOptions['language'] });
      }
    }
  };

  const start = () => {
    for (const [method, args] of (previous as CheckoutStub | undefined)?.q || []) (api[method] as (...a: unknown[]) => void)(...args);
    mountDeclared();
    // Single-page apps render the placeholder after the script has run: whenever nodes are
    // added, mount what is new (one selector query per batch of changes).
    new win.MutationObserver(mountDeclared).observe(doc, { childList: true, subtree: true });
  };

  if (doc.readyState == 'loading') doc.addEventListener('DOMContentLoaded', start);
  else start();
}
