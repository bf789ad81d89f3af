// One checkout frame in a merchant page and what its messages do there (the merchant's
// callbacks and DOM events, the final redirect): inline in an element, sized to its content
// (`Checkout.mount`), or an overlay's (`Checkout.open`). An overlay is one frame over the
// whole viewport, whose page draws the dialog (title, close button, focus kept inside,
// Escape) and asks to be closed; here the page behind is kept still, and everything is
// undone on close, focus back where it was.
// Runs on merchant pages, which may have a strict CSP: styles are set through
// element.style (CSSOM), never a <style> tag.

import { OVERLAY_NAME, PROTOCOL_VERSION, parseMessage, type CheckoutMessage, type CompletedMessage, type ReadyMessage } from './protocol';
import type { MountOptions, OpenOptions, OverlayHandle } from './checkout';

/**
 * A frame of `options.token`'s checkout, not in the page yet. No scrollbar of its own:
 * inline, it is sized to its content; an overlay's page scrolls inside its dialog's box.
 */
function createFrame(checkoutOrigin: string, options: MountOptions, overlay?: boolean): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.style.cssText = overlay
    ? 'border:0;width:100%;height:100%;position:fixed;inset:0;z-index:999999999;background:#0009'
    : 'border:0;width:100%;display:block';
  // An origin has no character a query must encode; an empty `lang` is none asked.
  frame.src = `${checkoutOrigin}/pay/${encodeURIComponent(options.token)}/?embed=1&origin=${location.origin}&lang=${encodeURIComponent(options.language || '')}`;
  // The Payment Request API (Apple Pay, Google Pay in Stripe's Payment Element) in a
  // cross-origin frame; the frame's page passes it on to the gateways it declares (its
  // Permissions-Policy, server/checkout/security.ts).
  frame.allow = 'payment';
  frame.scrolling = 'no';
  return frame;
}

/**
 * Mounts a frame in `element` (replacing its content), or with `overlay` over the whole
 * page (`element` is then <body>, which the frame is appended to). The handle's close and
 * destroy are the same, idempotent.
 *
 * An overlay's frame is transparent but for a backdrop, above the page's own layers; the
 * frame's page knows it is one by its window's name and sends `checkout:close`. An error
 * before the screen is ready (the frame refused, the token unknown, the checkout
 * unreachable) closes it too: nothing in it could be closed otherwise.
 */
export function mountFrame(checkoutOrigin: string, element: HTMLElement, options: MountOptions & OpenOptions, overlay?: boolean): OverlayHandle {
  const frame = createFrame(checkoutOrigin, options, overlay);
  const root = document.documentElement;
  const previousFocus = document.activeElement as HTMLElement | null;
  const previousOverflow = root.style.overflow;
  let height: number | undefined;
  let settled = 0;
  let heard: unknown;
  // The frame's accessible name; the frame's own page is localised by the server.
  const name = (language?: string | null) => (frame.title = ({ es: 'Pago', fr: 'Paiement' } as Record<string, string>)[language!] || 'Checkout');

  const destroy = () => {
    // An overlay is undone once (its frame is gone after that), focus given back after it.
    const undo = overlay && frame.isConnected;
    // The window's own listener methods, called bare (window is the global object).
    removeEventListener('message', onMessage);
    frame.remove();
    heard = 1; // closed before its first word: not reported unreachable by the timer below
    if (undo) {
      root.style.overflow = previousOverflow;
      element.inert = false;
      previousFocus!.focus();
      options.onClose?.();
    }
  };

  const handle = (message: CheckoutMessage | null) => {
    if (!message) return;
    const type = message.type;
    // Only an overlay's frame asks (an inline one that did would only remove itself).
    if (type == 'checkout:close') return destroy();
    // The screen's first word is checkout:ready: an error first closes an overlay (above).
    if (type == 'checkout:error' && overlay && !heard) destroy();
    heard = message;
    // The page's language may not be the one asked for (or none was); only checkout:ready carries one.
    if ((message as ReadyMessage).language) name((message as ReadyMessage).language);
    if (type == 'checkout:resize') {
      // Writing an unchanged height would still cost a layout pass on the merchant page.
      if (message.height == height) return;
      frame.style.height = (height = message.height) + 'px';
    }
    // Completed/cancelled (the messages with a redirect, null or not) are final: only the first is reported
    // (`settled` counts them), as a reloaded frame repeating them must not pay or navigate twice.
    if ('redirect' in message && settled++) return;
    const callback = {
      'checkout:ready': options.onReady,
      'checkout:completed': options.onComplete,
      'checkout:cancelled': options.onCancel,
      'checkout:error': options.onError,
    }[type as string] as ((m: typeof message) => unknown) | undefined;
    const go = callback?.(message) !== false;
    // Only http(s), which a message with no redirect fails too: a `javascript:` URL from a compromised frame must not run here.
    if (element.dispatchEvent(new CustomEvent(type, { detail: message, bubbles: true, cancelable: true })) && go && /^https?:/i.test((message as CompletedMessage).redirect!))
      location.assign((message as CompletedMessage).redirect!);
  };
  // Only from the checkout origin AND from this very frame's window (another frame of the
  // same origin, e.g. a second widget on the page, must not drive this one); a frame that is
  // gone has no window (source null), so nothing is accepted for it.
  const onMessage = ({ origin, source, data }: MessageEvent) =>
    origin == checkoutOrigin && source && source == frame.contentWindow && handle(parseMessage(data));
  name(options.language);
  // The frame speaks first, even to refuse (an origin not allowed, an unknown token). Loaded
  // without a word for 10 s: what loaded is not the checkout (the network, a proxy, the
  // browser's error page), which only this side can report. No text: the frame showed none of ours.
  frame.onload = () =>
    setTimeout(() => heard || handle({ type: 'checkout:error', version: PROTOCOL_VERSION, code: 'network', message: '' }), 1e4);
  if (overlay) {
    // First, so that without <body> yet (a call from <head>) this throws with nothing added.
    element.inert = true;
    frame.name = OVERLAY_NAME;
    // Beside <body>, which goes inert: out of reach of screen readers' virtual cursor too, not only of keys.
    root.append(frame);
    // Keys go to the frame from the start; its page focuses its close button once drawn.
    frame.focus();
    root.style.overflow = 'hidden';
  } else element.replaceChildren(frame);
  addEventListener('message', onMessage);
  return { close: destroy, destroy };
}
