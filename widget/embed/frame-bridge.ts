// The frame side of the protocol, started by the payment screen when `view.embed` is set.
// `parentOrigin` comes from the server, which only puts an origin there that it also lists
// in frame-ancestors; every post names it exactly, so a page at any other origin that
// manages to frame us never receives a message.
// In an overlay's frame (the loader names its window OVERLAY_NAME) it also draws the
// overlay's dialog around the screen (frame-overlay.ts): only the embed page loads this
// chunk, so the hosted page pays nothing for it.

import { drawOverlay, focusLastControl, type OverlayWords } from './frame-overlay';
import { OVERLAY_NAME, PROTOCOL_VERSION, acceptParentMessage, type CheckoutResult, type FrameMessage } from './protocol';

export interface FrameBridge {
  /** The screen is up, showing `language`. */
  ready(language: string): void;
  completed(result: CheckoutResult): void;
  cancelled(result: CheckoutResult): void;
  error(error: { code: string; message: string }): void;
  stop(): void;
}

type Body<T extends FrameMessage['type']> = Omit<Extract<FrameMessage, { type: T }>, 'type' | 'version'>;

export function startFrameBridge({ parentOrigin, words }: { parentOrigin: string; words: OverlayWords }): FrameBridge {
  const parent = window.parent;
  const framed = parent !== window;
  // An overlay's frame fills the viewport: it draws the dialog and sends no heights.
  const overlay = framed && window.name == OVERLAY_NAME;
  const post = <T extends FrameMessage['type']>(type: T, body: Body<T>) => {
    if (framed) parent.postMessage({ ...body, type, version: PROTOCOL_VERSION }, parentOrigin);
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
  // Where the screen's controls are: in an overlay, inside its dialog, after the close button.
  let controls: ParentNode = document;
  if (overlay) controls = drawOverlay(document, () => post('checkout:close', {}), words);
  else observer.observe(root);
  // Bubble phase on document: a control that handles Escape itself (and calls
  // preventDefault) keeps the overlay open, and so does a dialog of the screen's own (the
  // bank's challenge: Escape leaves it, not the payment).
  const onKeydown = (event: KeyboardEvent) => {
    if (event.key != 'Escape' || event.defaultPrevented) return;
    // Loaders before the frame drew the overlay close theirs on checkout:escape.
    if (!overlay) post('checkout:escape', {});
    else if (!document.querySelector('dialog[open]')) post('checkout:close', {});
  };
  document.addEventListener('keydown', onKeydown);
  // Page → frame: only from the window that framed us, at the origin the server allowed
  // (never from a sibling frame, a popup or ourselves). Not framed: nobody may ask.
  const onMessage = (event: MessageEvent) => {
    const message = acceptParentMessage(event, { origin: parentOrigin, source: framed ? parent : null });
    if (message) focusLastControl(controls);
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
