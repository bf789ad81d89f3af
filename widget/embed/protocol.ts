// The one message protocol between the checkout frame and the merchant page. Both sides
// import it; the loader bundles it, so it stays small and dependency-free.
// A breaking change bumps PROTOCOL_VERSION: old loaders then ignore new frames instead of
// misreading them.

export const PROTOCOL_VERSION = 1;

/** Transaction status letters of the API: New, Cancelled, Done (paid), Expired. */
export type TransactionStatus = 'N' | 'C' | 'D' | 'E';

/** The outcome the frame reports. Never carries payment data. */
export interface CheckoutResult {
  transaction_id: string;
  status: TransactionStatus;
  order_id: string | null;
  /** Where the frame wants the top window to go (return_url / cancel_url), if anywhere. */
  redirect: string | null;
}

interface Versioned {
  version: typeof PROTOCOL_VERSION;
}
export interface ReadyMessage extends Versioned {
  type: 'checkout:ready';
  /** The language the frame's page shows (en, es, fr, au), for the page around it to match; null from older frames. */
  language: string | null;
}
export interface ResizeMessage extends Versioned {
  type: 'checkout:resize';
  /** Whole CSS pixels. */
  height: number;
}
export interface CompletedMessage extends Versioned, CheckoutResult {
  type: 'checkout:completed';
}
export interface CancelledMessage extends Versioned, CheckoutResult {
  type: 'checkout:cancelled';
}
export interface ErrorMessage extends Versioned {
  type: 'checkout:error';
  /** The screen's message key in snake_case (error.insufficientFunds → insufficient_funds). */
  code: string;
  /** The localised text the frame shows the customer. */
  message: string;
}

/**
 * Internal (loader only, never shown to merchant code): the customer closed the overlay,
 * with its close button or Escape. The frame draws the overlay's dialog (it knows it is one
 * from its window's name, OVERLAY_NAME); only the loader can remove the frame.
 */
export interface CloseMessage extends Versioned {
  type: 'checkout:close';
}

/**
 * The name the loader gives an overlay's frame (`iframe.name`, the frame's `window.name`,
 * which stays the same as the frame navigates): the frame then draws the dialog around the
 * screen (backdrop, title, close button, focus kept inside) and sends `checkout:close`.
 */
export const OVERLAY_NAME = 'checkout-overlay';

/**
 * Frame → page, kept for loaders before the frame drew the overlay (a page may keep a
 * cached /widget.js for a day, a versioned one for longer): Escape pressed inside an inline
 * frame or one of their overlays. This loader does not accept it.
 */
export interface EscapeMessage extends Versioned {
  type: 'checkout:escape';
}

/**
 * Page → frame, kept for the same older loaders: Shift+Tab from their overlay's close
 * button. The page cannot focus anything inside the cross-origin frame, so it asks the frame
 * to focus its own last control. Never accepted by the page (parseMessage does not know it).
 */
export interface FocusLastMessage extends Versioned {
  type: 'checkout:focus-last';
}
const FOCUS_LAST = 'checkout:focus-last';

/** What merchants see: callbacks and DOM events. */
export type PublicMessage = ReadyMessage | ResizeMessage | CompletedMessage | CancelledMessage | ErrorMessage;
/** What this loader accepts from a frame. */
export type CheckoutMessage = PublicMessage | CloseMessage;
/** What a frame may send. */
export type FrameMessage = CheckoutMessage | EscapeMessage;

const isStr = (v: unknown): v is string => typeof v == 'string';
const isStrOrNull = (v: unknown): v is string | null => v === null || isStr(v);

/**
 * Returns a fresh message holding only the known fields, or null. Rebuilding (rather than
 * passing `data` through) keeps anything unexpected the frame might send out of merchant code.
 */
export function parseMessage(data: unknown): CheckoutMessage | null {
  // Only an object can carry version 1: a string or a number has no such field, and null and
  // the other falsy values (which could not be destructured) are read as an empty object.
  const { version, type, language, height, transaction_id, status, order_id, redirect = null, code, message } = (data || {}) as Record<string, unknown>;
  const head = { type, version: PROTOCOL_VERSION };
  return (
    version === PROTOCOL_VERSION &&
    (type == 'checkout:ready'
      ? { ...head, language: isStr(language) ? language : null }
      : type == 'checkout:close'
        ? head
        : type == 'checkout:resize'
          ? // An upper bound stops a misbehaving frame from growing the merchant page without limit.
            typeof height == 'number' && height >= 0 && height <= 1e5 && { ...head, height: Math.ceil(height) }
          : type == 'checkout:completed' || type == 'checkout:cancelled'
            ? isStr(transaction_id) &&
              // includes() compares strictly: only the one-letter strings pass.
              [...'NCDE'].includes(status as string) &&
              isStrOrNull(order_id) &&
              isStrOrNull(redirect) && { ...head, transaction_id, status, order_id, redirect }
            : type == 'checkout:error' && isStr(code) && isStr(message) && { ...head, code, message })
  ) as CheckoutMessage || null;
}

/**
 * The frame's side of the loader's origin and source check (frame.ts), for messages from
 * the page: only from the origin the server allowed (`parentOrigin`) AND from the very window that framed us (`window.parent`;
 * pass null when not framed, so nothing is accepted), with a known type and this
 * protocol version. Returns a fresh message holding only the known fields, or null.
 */
export function acceptParentMessage(
  event: { origin: string; source: unknown; data: unknown },
  expected: { origin: string; source: unknown },
): FocusLastMessage | null {
  if (event.origin !== expected.origin || event.source == null || event.source !== expected.source) return null;
  const d = event.data as Record<string, unknown> | null;
  return typeof d == 'object' && d && d.version === PROTOCOL_VERSION && d.type === FOCUS_LAST
    ? { type: FOCUS_LAST, version: PROTOCOL_VERSION }
    : null;
}
