// The wire format between the hydrated screen and POST /pay/{token}/. Without JavaScript
// the same form posts as application/x-www-form-urlencoded; with it, as this JSON.
import type { CheckoutView } from './view';

export type CheckoutAction = 'pay' | 'cancel';

export interface CheckoutRequest {
  action: CheckoutAction;
  gateway: string | null;
  fields: Record<string, string>;
}

/** What the customer did at the issuer's challenge; POSTed to the challenge's own URL. */
export type ChallengeAnswer = 'completed' | 'failed' | 'abandoned';

/**
 * Where a redirect sends the customer. The server may say so in `kind`; otherwise it is
 * inferred from the action and the gateway's flow (see `redirectKind`).
 */
export type RedirectKind = 'provider' | 'completed' | 'cancelled' | 'challenge';

/** The words the page's state left out, which the answer may need (client-strings.ts). */
type Words = { strings?: Record<string, string> };

export type CheckoutOutcome =
  /** `view`: what to show while leaving (a completed payment's confirmation). */
  | ({ outcome: 'redirect'; location: string; kind?: RedirectKind; view?: CheckoutView } & Words)
  | ({ outcome: 'view'; view: CheckoutView } & Words)
  /** `hosted-fields`: the processor's fields confirm the payment with `secret`, then the customer goes to `location`. */
  | ({ outcome: 'confirm'; secret: string; location: string; view?: undefined; kind?: undefined } & Words);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const REDIRECT_KINDS: readonly string[] = ['provider', 'completed', 'cancelled', 'challenge'];

function isView(value: unknown): value is CheckoutView {
  return isRecord(value) && typeof value.status === 'string';
}

/**
 * Only http(s) targets, absolute or relative to the page: a `javascript:` or `data:`
 * location from a tampered response must never be navigated to.
 */
export function isSafeRedirect(location: string): boolean {
  try {
    const { protocol } = new URL(location, 'https://relative.invalid/');
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

const words = (value: unknown): Words =>
  isRecord(value) && Object.values(value).every((text) => typeof text === 'string') ? { strings: value as Record<string, string> } : {};

export function parseOutcome(body: unknown): CheckoutOutcome | null {
  if (!isRecord(body)) return null;
  const strings = words(body.strings);
  // Only to a location that may be navigated to: the processor's confirmation goes there too.
  const location = typeof body.location === 'string' && isSafeRedirect(body.location) ? body.location : null;
  if (body.outcome === 'redirect' && location) {
    const kind = typeof body.kind === 'string' && REDIRECT_KINDS.includes(body.kind) ? (body.kind as RedirectKind) : undefined;
    const view = isView(body.view) ? body.view : undefined;
    return { outcome: 'redirect', location, kind, ...(view ? { view } : {}), ...strings };
  }
  if (body.outcome === 'confirm' && location && typeof body.secret === 'string') return { outcome: 'confirm', secret: body.secret, location, ...strings };
  if (body.outcome === 'view' && isView(body.view)) return { outcome: 'view', view: body.view, ...strings };
  return null;
}

export class TransportError extends Error {
  override name = 'TransportError';
}

/**
 * POSTs the action as JSON to the page's own URL. Any answer that is not a well-formed
 * outcome (network failure, proxy error page, 5xx) is a TransportError; a 4xx that carries
 * an outcome (a stale CSRF token answered with a fresh view) is still an outcome.
 */
export async function postCheckout(
  fetchImpl: typeof fetch,
  url: string,
  csrf: string,
  request: CheckoutRequest | { answer: ChallengeAnswer },
): Promise<CheckoutOutcome> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' },
      body: JSON.stringify(request),
      credentials: 'same-origin',
    });
  } catch (cause) {
    throw new TransportError('network', { cause });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (cause) {
    throw new TransportError(`unreadable response (${response.status})`, { cause });
  }
  const outcome = parseOutcome(body);
  if (!outcome) throw new TransportError(`unexpected response (${response.status})`);
  return outcome;
}
