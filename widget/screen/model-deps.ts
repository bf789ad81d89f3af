// What the screen's model talks to outside itself: the server, the page's location, the
// clock and the timers. Tests and the embed mode pass their own.
import { postCheckout, type ChallengeAnswer, type CheckoutOutcome, type CheckoutRequest, type RedirectKind } from './transport';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CheckoutDeps {
  /** Sends an action to the server; by default a JSON POST to the page's own URL. */
  submit: (request: CheckoutRequest, csrf: string) => Promise<CheckoutOutcome>;
  /** Sends the customer's answer to a challenge; by default a JSON POST to the challenge's URL. */
  answer: (url: string, answer: ChallengeAnswer, csrf: string) => Promise<CheckoutOutcome>;
  /**
   * Leaves the page. Embed mode passes its own so the frame bridge can tell the merchant's
   * page instead of navigating the iframe.
   */
  onRedirect: (location: string, kind: RedirectKind) => void;
  /** The client clock (ms); corrected by `view.serverNow` before use. */
  now: () => number;
  timers: Timers;
}

/** Touches `location` and `fetch` only when called, so the server can build a model. */
export function defaultDeps(): CheckoutDeps {
  return {
    submit: (request, csrf) =>
      postCheckout(fetch.bind(globalThis), location.pathname + location.search, csrf, request),
    answer: (url, answer, csrf) => postCheckout(fetch.bind(globalThis), url, csrf, { answer }),
    onRedirect: (target) => location.assign(target),
    now: () => Date.now(),
    timers: {
      setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  };
}
