// Public types of /widget.js for merchants. Self-contained on purpose so it can be copied
// into a merchant's project; test/unit/widget/types.test-d.ts keeps it equal to protocol.ts
// and to what the loader implements.

export type CheckoutLanguage = 'en' | 'es' | 'fr' | 'au';
export type TransactionStatus = 'N' | 'C' | 'D' | 'E';

export interface CheckoutResult {
  transaction_id: string;
  status: TransactionStatus;
  order_id: string | null;
  /** return_url / cancel_url the page will navigate to; only http(s) URLs are followed. */
  redirect: string | null;
}

export interface ReadyMessage {
  type: 'checkout:ready';
  version: 1;
  /** The language the checkout shows (en, es, fr, au): the one asked for, or the customer's browser's. */
  language: string | null;
}
export interface ResizeMessage {
  type: 'checkout:resize';
  version: 1;
  height: number;
}
export interface CompletedMessage extends CheckoutResult {
  type: 'checkout:completed';
  version: 1;
}
export interface CancelledMessage extends CheckoutResult {
  type: 'checkout:cancelled';
  version: 1;
}
export interface ErrorMessage {
  type: 'checkout:error';
  version: 1;
  /**
   * declined, insufficient_funds, gateway_failed, network, session, in_progress,
   * too_many_attempts, fields_invalid, gateway_required or generic; treat any other code
   * like generic.
   */
  code: string;
  /** The localised text the frame shows the customer. */
  message: string;
}
export type CheckoutMessage =
  | ReadyMessage
  | ResizeMessage
  | CompletedMessage
  | CancelledMessage
  | ErrorMessage;

export interface MountOptions {
  /** The transaction's `token` (not its id). */
  token: string;
  language?: CheckoutLanguage;
  onReady?: (message: ReadyMessage) => void;
  /** Return `false` to stay on the page instead of following `redirect`. */
  onComplete?: (message: CompletedMessage) => boolean | void;
  /** Return `false` to stay on the page instead of following `redirect`. */
  onCancel?: (message: CancelledMessage) => boolean | void;
  onError?: (message: ErrorMessage) => void;
}

export interface OpenOptions extends MountOptions {
  /**
   * The overlay was closed (close button, Escape or `close()`, or by itself on a
   * `checkout:error` before the screen was ready: it could show no payment); the payment may
   * still be pending.
   */
  onClose?: () => void;
}

export interface CheckoutHandle {
  /** Removes the frame and stops listening to it. Idempotent. */
  destroy(): void;
}

export interface OverlayHandle extends CheckoutHandle {
  /** Same as destroy(): removes the overlay and gives focus back. */
  close(): void;
}

export interface CheckoutApi {
  /** The message protocol version this loader speaks. */
  readonly version: 1;
  /** Embeds the checkout inline, replacing `element`'s content (e.g. a no-JavaScript fallback link). */
  mount(element: HTMLElement, options: MountOptions): CheckoutHandle;
  /** Shows the checkout in a modal overlay: one frame over the whole viewport. */
  open(options: OpenOptions): OverlayHandle;
}

/**
 * What the inline snippet defines before /widget.js arrives: calls are queued and replayed
 * once it loads. They return nothing; use the callbacks or DOM events instead of a handle.
 */
export interface CheckoutStub {
  q: Array<['mount', IArguments | [HTMLElement, MountOptions]] | ['open', IArguments | [OpenOptions]]>;
  mount(element: HTMLElement, options: MountOptions): void;
  open(options: OpenOptions): void;
}

/** DOM events dispatched on the mounted element (they bubble, so `document` hears them too). */
export interface CheckoutEventMap {
  'checkout:ready': CustomEvent<ReadyMessage>;
  'checkout:resize': CustomEvent<ResizeMessage>;
  /** Cancelable: preventDefault() keeps the page from following `redirect`. */
  'checkout:completed': CustomEvent<CompletedMessage>;
  /** Cancelable: preventDefault() keeps the page from following `redirect`. */
  'checkout:cancelled': CustomEvent<CancelledMessage>;
  'checkout:error': CustomEvent<ErrorMessage>;
}

declare global {
  interface Window {
    Checkout?: CheckoutApi | CheckoutStub;
  }
  interface HTMLElementEventMap extends CheckoutEventMap {}
  interface DocumentEventMap extends CheckoutEventMap {}
}
