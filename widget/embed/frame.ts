// One checkout frame in a merchant page's element: the iframe, sized to its content, and
// what its messages do there (the merchant's callbacks and DOM events, the final redirect).
// Runs on merchant pages, which may have a strict CSP: styles are set through
// element.style (CSSOM), never a <style> tag.

import { PROTOCOL_VERSION, acceptMessage } from './protocol';
import type { CheckoutHandle, MountOptions } from './checkout';

// [frame title, close button name]; the frame's own page is localised by the server.
const LABELS: Record<string, string[]> = { es: ['Pago', 'Cerrar'], fr: ['Paiement', 'Fermer'] };
export const labels = (language?: string | null) => LABELS[language!] || ['Checkout', 'Close'];

export const frameSrc = (checkoutOrigin: string, token: string, parentOrigin: string, language?: string) =>
  `${checkoutOrigin}/pay/${encodeURIComponent(token)}/?embed=1&origin=${encodeURIComponent(parentOrigin)}` +
  (language ? '&lang=' + encodeURIComponent(language) : '');

/**
 * Only http(s): a `javascript:` URL from a compromised frame must not run in the merchant
 * page. Meant for what parseMessage lets through, a string or null (tested as "null").
 */
export const isHttpUrl = (url: unknown): url is string => /^https?:\/\//i.test(url as string);

/**
 * A new element with its inline style, set as cssText: the CSSOM, allowed under any
 * style-src (unlike a style attribute in markup or a <style> tag).
 */
export function styled<K extends keyof HTMLElementTagNameMap>(tag: K, css: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.style.cssText = css;
  return element;
}

/**
 * `onEscape`: the customer pressed Escape in the frame. `onLabels`: this page's words
 * ([title, close button]) for the language asked, then for the one the frame says it shows.
 */
export function mountFrame(
  checkoutOrigin: string,
  element: HTMLElement,
  options: MountOptions,
  onEscape?: () => void,
  onLabels?: (words: string[]) => void,
): CheckoutHandle {
  // The frame is sized to its content, so it must never show a scrollbar of its own.
  const frame = styled('iframe', 'border:0;width:100%;display:block;overflow:hidden');
  let height: number | undefined;
  // Counts final messages: only the first is reported.
  let settled = 0;
  let heard: boolean | undefined;
  const name = (language?: string | null) => {
    const words = labels(language);
    frame.title = words[0]!;
    onLabels?.(words);
  };
  frame.src = frameSrc(checkoutOrigin, options.token, location.origin, options.language);
  name(options.language);
  frame.allow = 'payment';
  frame.setAttribute('scrolling', 'no');

  const onMessage = (event: Pick<MessageEvent, 'origin' | 'source' | 'data'>) => {
    const message = acceptMessage(event, checkoutOrigin, frame.contentWindow);
    if (!message) return;
    heard = true;
    const type = message.type;
    if (type == 'checkout:escape') return onEscape?.();
    // The frame's page may speak another language than the one asked for (none asked: the
    // customer's browser chose): the frame's title and the overlay follow it.
    if (type == 'checkout:ready' && message.language) name(message.language);
    if (type == 'checkout:resize') {
      // Writing an unchanged height would still cost a layout pass on the merchant page.
      if (message.height == height) return;
      frame.style.height = (height = message.height) + 'px';
    }
    // Completed/cancelled are final: a reloaded frame repeating them must not pay twice in
    // the merchant's bookkeeping or navigate twice.
    const final = type == 'checkout:completed' || type == 'checkout:cancelled';
    if (final && settled++) return;
    const callback = {
      'checkout:ready': options.onReady,
      'checkout:completed': options.onComplete,
      'checkout:cancelled': options.onCancel,
      'checkout:error': options.onError,
    }[type as string] as ((m: typeof message) => unknown) | undefined;
    const stay = callback?.(message) === false;
    if (
      element.dispatchEvent(new CustomEvent(type, { detail: message, bubbles: true, cancelable: true })) &&
      final &&
      !stay &&
      isHttpUrl(message.redirect)
    )
      location.assign(message.redirect);
  };

  // The frame speaks first, even to refuse (an origin not allowed, an unknown token). Loaded
  // without a word for 10 s: what loaded is not the checkout (the network, a proxy, the
  // browser's error page), which only this side can report. No text: the frame showed none of ours.
  frame.onload = () =>
    setTimeout(
      () =>
        heard ||
        onMessage({
          origin: checkoutOrigin,
          source: frame.contentWindow,
          data: { type: 'checkout:error', version: PROTOCOL_VERSION, code: 'network', message: '' },
        }),
      1e4,
    );
  // The window's own listener methods, called bare (window is the global object).
  addEventListener('message', onMessage);
  element.replaceChildren(frame);
  return {
    destroy() {
      removeEventListener('message', onMessage);
      frame.remove();
    },
  };
}
