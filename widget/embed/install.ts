// Turns one loaded copy of /widget.js into `window.Checkout`: finds the checkout origin,
// replays calls queued by the inline snippet and mounts declarative elements. Takes the
// window and the API factory as arguments so it can be tested without a browser.

import type { CheckoutApi, CheckoutHandle, CheckoutStub, MountOptions } from './checkout';

interface InstallWindow {
  document: Document;
  MutationObserver: typeof MutationObserver;
  Checkout?: CheckoutApi | CheckoutStub;
}

/** A declarative element once mounted. */
interface DeclaredElement extends HTMLElement {
  checkoutHandle?: CheckoutHandle;
}

export function install(win: InstallWindow, createCheckout: (checkoutOrigin: string) => CheckoutApi): void {
  const previous = win.Checkout;
  // A second copy of the script on the page must not mount everything again.
  if ((previous as CheckoutApi | undefined)?.version) return;
  const doc = win.document;
  // The origin that served this script is the checkout origin. currentScript is null when
  // the loader runs late (e.g. from a bundler's wrapper), so fall back to the script tag:
  // /widget.js or its versioned copy /widget.HASH.js (not chat-widget.js, not /widgets/…).
  const script = (doc.currentScript || doc.querySelector('script[src*="/widget."]')) as HTMLScriptElement;
  const api = (win.Checkout = createCheckout(new URL(script.src).origin));

  // Each element is mounted once: its handle is kept on it (`checkoutHandle`).
  const mountDeclared = () => {
    for (const element of doc.querySelectorAll<DeclaredElement>('[data-checkout-token]')) {
      const { checkoutToken: token, language } = element.dataset;
      if (token && !element.checkoutHandle)
        element.checkoutHandle = api.mount(element, { token, language: language as MountOptions['language'] });
    }
  };

  const start = () => {
    mountDeclared();
    // Single-page apps render the placeholder after the script has run: whenever nodes are
    // added, mount what is new (one selector query per batch of changes).
    new win.MutationObserver(mountDeclared).observe(doc, { childList: true, subtree: true });
    // Last: a queued call that throws (an element that is not there) stops no other widget.
    for (const [method, args] of (previous as CheckoutStub | undefined)?.q || []) (api[method] as (...a: unknown[]) => void)(...args);
  };

  if (doc.readyState == 'loading') doc.addEventListener('DOMContentLoaded', start);
  else start();
}
