// The frame side of the protocol, started by the payment screen when `view.embed` is set.
// `parentOrigin` comes from the server, which only puts an origin there that it also lists
// in frame-ancestors; every post names it exactly, so a page at any other origin that
// manages to frame us never receives a message.

import { PROTOCOL_VERSION, acceptParentMessage, type CheckoutMessage, type CheckoutResult } from './protocol';

export interface FrameBridge {
  /** The screen is up, showing `language`. */
  ready(language: string): void;
  completed(result: CheckoutResult): void;
  cancelled(result: CheckoutResult): void;
  error(error: { code: string; message: string }): void;
  stop(): void;
}

// Everything that can take focus by itself; what is disabled, hidden or out of the tab order
// is filtered below.
const FOCUSABLE = 'a[href],area[href],button,input,select,textarea,iframe,summary,[tabindex],[contenteditable]';

/**
 * Focuses the last control Tab can reach in the document (what Shift+Tab from the page's
 * close button should land on), trying the previous one whenever focus does not take.
 */
export function focusLastControl(doc: Document = document): HTMLElement | null {
  const controls = [...doc.querySelectorAll<HTMLElement>(FOCUSABLE)];
  for (let i = controls.length - 1; i >= 0; i--) {
    const el = controls[i]!;
    const radio = el instanceof HTMLInputElement && el.type == 'radio' && el.name ? el : null;
    if (
      el.tabIndex < 0 ||
      el.matches(':disabled') ||
      el.closest('[inert]') ||
      // display: none (itself or an ancestor, type=hidden too) has no boxes.
      !el.getClientRects().length ||
      getComputedStyle(el).visibility != 'visible' ||
      // Tab reaches a radio group on its checked button only, if it has one.
      (radio && !radio.checked && radio.form?.querySelector(`input[type=radio][name="${CSS.escape(radio.name)}"]:checked`))
    )
      continue;
    el.focus();
    if (doc.activeElement === el) return el;
  }
  return null;
}

type Body<T extends CheckoutMessage['type']> = Omit<Extract<CheckoutMessage, { type: T }>, 'type' | 'version'>;

export function startFrameBridge({ parentOrigin }: { parentOrigin: string }): FrameBridge {
  const parent = window.parent;
  const post = <T extends CheckoutMessage['type']>(type: T, body: Body<T>) => {
    if (parent !== window) parent.postMessage({ ...body, type, version: PROTOCOL_VERSION }, parentOrigin);
  };
  // Copy field by field so nothing else the caller's object holds can reach the merchant.
  const result = ({ transaction_id, status, order_id, redirect }: CheckoutResult): CheckoutResult => ({
    transaction_id,
    status,
    order_id,
    redirect,
  });

  const root = document.documentElement;
  let lastHeight = -1;
  const observer = new ResizeObserver(() => {
    // Rounded up: a fractional height rounded down would clip the last pixel row.
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height == lastHeight) return;
    lastHeight = height;
    post('checkout:resize', { height });
  });
  observer.observe(root);
  // Bubble phase on document: a control that handles Escape itself (and calls
  // preventDefault) keeps the overlay open.
  const onKeydown = (event: KeyboardEvent) => {
    if (event.key == 'Escape' && !event.defaultPrevented) post('checkout:escape', {});
  };
  document.addEventListener('keydown', onKeydown);
  // Page → frame: only from the window that framed us, at the origin the server allowed
  // (never from a sibling frame, a popup or ourselves). Not framed: nobody may ask.
  const onMessage = (event: MessageEvent) => {
    const message = acceptParentMessage(event, { origin: parentOrigin, source: parent !== window ? parent : null });
    if (message) focusLastControl();
  };
  window.addEventListener('message', onMessage);

  return {
    ready: (language) => post('checkout:ready', { language }),
    completed: (r) => post('checkout:completed', result(r)),
    cancelled: (r) => post('checkout:cancelled', result(r)),
    error: ({ code, message }) => post('checkout:error', { code, message }),
    stop() {
      observer.disconnect();
      document.removeEventListener('keydown', onKeydown);
      window.removeEventListener('message', onMessage);
    },
  };
}
