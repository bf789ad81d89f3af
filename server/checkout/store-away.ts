import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { Gateway } from '../payments/gateway';
import { type Checked, storedRedirect } from '../payments/redirect';
import { answerStoreChallenge } from '../payments/store-challenge';
import type { StoreCardInput } from '../payments/store-card';
import { scopedDeps } from '../deps';
import { type GatewayCall, listCalls } from '../store/gateway-calls';
import type { AuthorizationRow } from '../store/schema';
import { storeInDoubt } from '../store/saved-cards';
import { findCallByReference } from '../store/unknown-outcomes';
import type { Found, HostedOutcome, HostedPage } from './hosted-page';
import { type CheckoutContext, stepUrl } from './page';
import { renderRedirectForm } from './provider-page';
import { REFERENCE } from './provider-routes';
import { applyPageHeaders, newNonce } from './security';
import { notStored, type StoreResult, toChallenge } from './store-step';

// A card stored on the processor's own page (Stripe Checkout in setup mode, Redsys's page),
// as the pages that store cards run it: the save page (/pay/sav_…/, save-routes.ts) and a
// subscription's sign-up (/pay/sub_…/, signup-routes.ts). The store's challenge is the
// processor's page: the customer is sent there (a GET, or our form that posts itself), and
// comes back to the store call's own return route, `return/{reference}/` under the page.
// Nothing brought back is believed: the challenge is resumed and the gateway reads what the
// processor did, or (Redsys) only the processor's notification says, and the return reads
// what it came to.

/** The card's source for storeCard: the fields posted here, or (a redirect gateway) none, and the processor's page with the call's return route. */
export function cardSource(gateway: Gateway, page: HostedPage<Found>, base: string, fields: Record<string, string>): Pick<StoreCardInput, 'fields' | 'page'> {
  if (gateway.flow !== 'redirect') return { fields };
  return { fields: {}, page: { returnUrl: (reference) => `${base}${stepUrl(page, `return/${reference}/`)}`, language: page.language } };
}

/** Where a store that asks the customer first sends them: the processor's page by GET, else the page's challenge step (whose form posts to the processor, or shows the issuer's challenge). */
export function toStoreChallenge(page: HostedPage<Found>, redirect: Checked | undefined): HostedOutcome {
  if (redirect?.method === 'GET') return { kind: 'redirect', location: redirect.url, redirectKind: 'provider' };
  if (redirect) return { kind: 'redirect', location: stepUrl(page, 'challenge/'), redirectKind: 'provider' };
  return toChallenge(page);
}

/**
 * The challenge step of an authorization whose challenge is the processor's page (the
 * redirect kept on its store call): the customer is sent there again, and true; false when
 * the challenge is the issuer's, shown by the page itself.
 */
export async function toProcessorAgain(ctx: CheckoutContext, res: Response, page: HostedPage<Found>, authorization: AuthorizationRow): Promise<boolean> {
  const call = (await listCalls(ctx.db, authorization.id)).filter((c) => c.kind === 'store' && c.processor_id === authorization.gateway_challenge).at(-1);
  const away = call ? storedRedirect(call) : null;
  const gateway = page.gateways.find(authorization);
  if (!away || !gateway) return false;
  if (away.method === 'GET') res.redirect(303, away.url);
  else sendRedirectForm(ctx, res, page, gateway, away);
  return true;
}

/** The form that posts the customer to the processor's page, checked when the gateway answered (payments/redirect.ts): its form may post there only. */
function sendRedirectForm(ctx: CheckoutContext, res: Response, page: HostedPage<Found>, gateway: Gateway, to: Checked): void {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: [new URL(to.url).origin] });
  res.type('html').send(renderRedirectForm({ language: page.language, gateway, to, nonce, styles: ctx.screenAssets().styles }));
}

/** The store call a return route's reference names, when it stored (or stores) `authorizationId`'s card. */
export async function returnedCall(ctx: CheckoutContext, req: Request, authorizationId: string | null | undefined): Promise<GatewayCall | undefined> {
  const reference = String(req.params.reference);
  const call = authorizationId && REFERENCE.test(reference) ? await findCallByReference(ctx.db, reference) : undefined;
  return call?.kind === 'store' && call.subject_id === authorizationId ? call : undefined;
}

/** What a customer's return from the processor's page comes to. */
export type StoreReturn =
  /** Saved: by this return, or before it by the processor's notification (Redsys). */
  | { kind: 'stored'; authorization: AuthorizationRow }
  /** Waiting for the processor's notification, which alone saves the card (or the challenge's lapse, which ends it), or for reconciliation to prove a resumed store. */
  | { kind: 'checking' }
  /** Not saved: the page takes another card, with this message. */
  | { kind: 'not_stored'; message: StoreResult }
  /** Answered already by another return, or left: the page shows where it stands. */
  | { kind: 'page' };

/** How long a return waits for another request's read of the same store (about 3 s). */
const READ_POLLS = 30;
const READ_POLL_MS = 100;

/**
 * Whether the store is still unsettled after a short wait. A read by another request of
 * this moment (the return loaded twice) settles within it, and this return then shows where
 * things stand rather than "being checked"; a read left by a process that died stays in
 * doubt until reconciliation.
 */
async function stillInDoubt(ctx: CheckoutContext, authorizationId: string): Promise<boolean> {
  for (let poll = 0; poll < READ_POLLS; poll++) {
    if (!(await storeInDoubt(ctx.db, authorizationId))) return false;
    await sleep(READ_POLL_MS);
  }
  return true;
}

/** What the store `call` of `authorization` came to, once the customer is back from the processor's page. */
export async function readStoreReturn(ctx: CheckoutContext, req: Request, page: HostedPage<Found>, authorization: AuthorizationRow, call: GatewayCall): Promise<StoreReturn> {
  const waiting = authorization.status === 'requires_action' && call.processor_id !== null && authorization.gateway_challenge === call.processor_id;
  // Only the processor's notification says whether the card was saved (Redsys), and it usually arrives first.
  if (!page.gateways.find(authorization)?.resume) {
    if (authorization.status === 'active') return { kind: 'stored', authorization };
    if (waiting) return { kind: 'checking' };
    // A hosted save page's authorization is open again; a new one (a sign-up's) failed.
    return authorization.status === 'pending' || authorization.status === 'failed' ? { kind: 'not_stored', message: 'error.saveDeclined' } : { kind: 'page' };
  }
  // Its resumed store in doubt (the service died reading it): the card may be saved, and reconciliation will tell.
  if (!waiting) return (await stillInDoubt(ctx, authorization.id)) ? { kind: 'checking' } : { kind: 'page' };
  const outcome = await answerStoreChallenge(scopedDeps(ctx.deps, req), { authorization, answer: 'completed' });
  if (outcome.kind === 'stored') return outcome;
  // The processor keeps a customer whose card it declines on its page: back without a card saved, they left it.
  return { kind: 'not_stored', message: outcome.kind === 'declined' ? 'error.saveIncomplete' : notStored('completed', outcome) };
}
