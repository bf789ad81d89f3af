import { inTransaction } from '../store/db';
import { type ConfirmPage, findConfirm } from '../store/confirm-links';
import { markConfirmed } from '../store/sale-aggregate';
import { findCallByReference } from '../store/unknown-outcomes';
import { getSale } from '../store/sales';
import { addOperation } from '../store/sale-operations';
import { touchAuthorization } from '../store/authorizations';
import { askGateway, type PaymentDeps } from './ask';
import type { ConfirmInput, Gateway } from './gateway';
import { checkRedirect } from './redirect';
import { recordConfirmedPeriod } from './subscription-confirm';

// A charge of a saved card that the issuer declined until the customer authenticates
// (`failure: authentication_required`, charge-record.ts) is confirmed by the customer on
// the hosted page `/pay/confirm/{token}/` (checkout/confirm-routes.ts): the gateway sends
// them to the issuer's authentication (`confirm`), and back on the page's return route the
// processor is asked again what became of its payment (`confirmed`), by its id; nothing the
// customer's return carries is believed. A payment the processor made is recorded into the
// sale once (a conditional write: of two returns at once, one records it), with
// `sale.captured` and `authorization.charged` (a renewal's: its period paid, with
// `subscription.charged`, subscription-confirm.ts), whoever brings it first: the customer's
// return, or Stripe's `payment_intent.succeeded` (a customer who never comes back). A
// failed authentication leaves the link open.

/** Where the page stands: waiting for the customer, paid, or over (expired, or no longer the sale's answer). */
export type ConfirmState = 'open' | 'paid' | 'expired';

export function confirmState(row: ConfirmPage['row'], now: Date): ConfirmState {
  if (row.failure === null && row.captured > 0) return 'paid';
  if (row.failure === 'authentication_required' && Date.parse(row.confirm_expires_at ?? '') > now.getTime()) return 'open';
  return 'expired';
}

export type Confirmation =
  /** To the issuer's authentication (a checked destination). */
  | { kind: 'redirect'; url: string }
  /** The processor made the payment, and it is recorded (by this request or another). */
  | { kind: 'paid' }
  /** The authentication failed or the card was declined: nothing taken, the link stays open. */
  | { kind: 'declined' }
  /** The processor has not decided yet, or could not be asked: the customer may come back. */
  | { kind: 'pending' }
  /** Nothing to confirm: the gateway cannot, or the processor refused (the page says it cannot be confirmed). */
  | { kind: 'unavailable' };

const inputOf = (page: ConfirmPage, signal: AbortSignal): ConfirmInput | null =>
  page.call.processor_id ? { reference: page.call.reference, signal, payment: page.call.processor_id, amount: page.row.amount, currency: page.row.currency } : null;

/** The customer pressed "Confirm payment": to the issuer, or what the processor decided at once. */
export async function startConfirmation(deps: PaymentDeps, page: ConfirmPage, gateway: Gateway | undefined, c: { returnUrl: string; ownOrigin: string }): Promise<Confirmation> {
  if (!gateway?.confirm || !page.call.processor_id) return { kind: 'unavailable' };
  const answer = await askGateway(deps, gateway, (signal) => gateway.confirm!({ ...inputOf(page, signal)!, returnUrl: c.returnUrl }));
  if (answer.kind === 'unknown') return { kind: 'pending' };
  if (answer.kind === 'not_acted') return { kind: 'unavailable' };
  const r = answer.value;
  if (r.outcome === 'redirect') {
    const checked = checkRedirect(gateway, r.redirect, c.ownOrigin);
    if ('to' in checked && checked.to.method === 'GET') return { kind: 'redirect', url: checked.to.url };
    deps.log.warn({ sale: page.row.id, why: 'refused' in checked ? checked.refused : 'not a GET' }, 'confirmation redirect not followed');
    return { kind: 'unavailable' };
  }
  if (r.outcome === 'approved') return recordConfirmed(deps, page, r.reference);
  return { kind: 'declined' };
}

/** The customer back from the issuer: the processor's payment read again by its id, recorded once if made. */
export async function finishConfirmation(deps: PaymentDeps, page: ConfirmPage, gateway: Gateway | undefined): Promise<Confirmation> {
  if (!gateway?.confirmed || !page.call.processor_id) return { kind: 'unavailable' };
  const answer = await askGateway(deps, gateway, (signal) => gateway.confirmed!(inputOf(page, signal)!));
  if (answer.kind !== 'answered') return { kind: 'pending' };
  const r = answer.value;
  if (r.outcome === 'approved') return recordConfirmed(deps, page, r.reference);
  return r.outcome === 'pending' ? { kind: 'pending' } : { kind: 'declined' };
}

/**
 * The processor says one of our payments succeeded (a webhook, processor-events.ts): a
 * charge of this environment that still waits for its customer is settled as its return
 * would settle it, the payment read again by its id; anything else is not this page's.
 */
export async function confirmedAtProcessor(deps: PaymentDeps, source: { environmentId: string; gateway: Gateway }, says: { reference: string; payment: string }): Promise<void> {
  const db = deps.database.db;
  const call = await findCallByReference(db, says.reference);
  if (!call || (call.kind !== 'charge' && call.kind !== 'subscription') || call.environment_id !== source.environmentId || call.processor_id !== says.payment || !call.result_id) return;
  const token = (await getSale(db, source.environmentId, call.result_id))?.row.confirm_token;
  const page = token ? await findConfirm(db, token) : undefined;
  if (page?.row.failure === 'authentication_required') await finishConfirmation(deps, page, source.gateway);
}

/** The payment made: recorded into the sale once, with its charge operation and events. Even past the link's expiry: the money was taken. */
async function recordConfirmed(deps: PaymentDeps, page: ConfirmPage, payment: string): Promise<Confirmation> {
  const now = deps.now();
  const recorded = await inTransaction(deps.database.db, async (trx) => {
    if (!(await markConfirmed(trx, page.row, now))) return false;
    await addOperation(trx, page.row.id, 'charge', page.row.amount, payment, now);
    // A subscription's period: paid as a renewal is, with its events.
    if (page.call.kind === 'subscription') return recordConfirmedPeriod(trx, { chargeId: page.call.subject_id, saleId: page.row.id, now, outbox: deps.outbox, log: deps.log });
    const sale = (await getSale(trx, null, page.row.id))!;
    await deps.outbox.emit(trx, 'sale.captured', sale.row.id, now, { sale });
    if (sale.row.authorization_id) {
      const authorization = await touchAuthorization(trx, sale.row.authorization_id, now);
      await deps.outbox.emit(trx, 'authorization.charged', authorization.id, now, { authorization });
    }
    return true;
  });
  if (recorded) deps.log.info({ sale: page.row.id }, 'charge confirmed by the customer');
  return { kind: 'paid' };
}
