import { GatewayNotificationOnly, type LookupInput, type LookupResult } from '../gateway';
import { cardOf, checkAnswer, RedsysUnknownOutcome } from './answers';
import { approvedCount, lookupOperation, OPERATION_TYPES } from './actions';
import { paymentMeaning } from './codes';
import type { RedsysContext } from './context';
import { orderNumber } from './order';
import { queryOperations } from './query';
import { paymentRef, readPaymentRef } from './references';

// What Redsys did for one of our references, through the query service. A payment's order
// is the call's processor id, or derived again from the reference (order.ts), so a payment
// can be looked up after a restart too; what this process sent (amount, currency) checks
// the answer when it is known. An operation (capture, refund, void) needs what was sent
// before it (actions.ts), kept in memory and by `ctx.operations` (after a restart, the
// database's); without it (its process died before keeping it) the order's operations of
// its type and amount are counted: none, it was not made; some, an earlier one of the same
// amount could be taken for it, so it throws and the reconciliation sends it to `attention`.
// A payment on Redsys's page, on a terminal without the query service, is told by its
// signed notification alone: its lookup says so (`GatewayNotificationOnly`), and the call
// waits for it rather than going to `attention` (payments/reconcile.ts).

async function lookupPayment(ctx: RedsysContext, input: LookupInput): Promise<LookupResult> {
  const sent = ctx.sent.get(input.reference);
  const known = sent && (sent.kind === 'pay' || sent.kind === 'charge') ? sent : null;
  const order = input.processorId?.split(':')[0] ?? known?.order ?? orderNumber(input.reference);
  // Without memory the type is unknown: a payment (0) or a hold (1).
  const types = known ? [known.type] : ['0', '1'];
  for (const type of types) {
    const [operation, ...more] = await queryOperations(ctx, order, type, input.signal);
    if (!operation) continue;
    if (more.length > 0) throw new RedsysUnknownOutcome(`Redsys shows ${more.length + 1} payments of order ${order}: attention`);
    checkAnswer(operation, { merchantCode: ctx.settings.merchant_code, terminal: ctx.settings.terminal, order, ...(known ? { amount: known.amount, currencyCode: known.currencyCode } : {}) });
    // Our reference travels in MerchantData: an operation of the order that does not carry it is someone else's (a colliding order).
    if (operation.Ds_MerchantData !== undefined && operation.Ds_MerchantData !== '' && operation.Ds_MerchantData !== input.reference) {
      throw new RedsysUnknownOutcome(`order ${order} carries another reference: attention`);
    }
    const meaning = paymentMeaning(operation.Ds_Response);
    const card = cardOf(operation);
    if (meaning === 'approved') return { status: 'succeeded', reference: paymentRef({ order, currencyCode: operation.Ds_Currency.padStart(3, '0') }), card };
    return { status: 'failed', reason: meaning, card };
  }
  return { status: 'not_found' };
}

/**
 * An operation with no count kept from before it was sent (its process died between the
 * reservation and keeping the count, so it was most likely never sent): the order is asked.
 * No approved operation of its type and amount there: not made. One or more: an earlier
 * one of the same amount cannot be told from it, so it stays for a person.
 */
async function lookupUncounted(ctx: RedsysContext, kind: 'capture' | 'refund' | 'void', input: LookupInput): Promise<LookupResult> {
  const ref = input.payment ? readPaymentRef(input.payment) : null;
  if (!ctx.settings.query_service || !ref || input.amount === undefined) {
    throw new RedsysUnknownOutcome(`no count taken before sending the ${kind} ${input.reference} is kept, and Redsys cannot be asked about it: attention`);
  }
  const shown = await approvedCount(ctx, { order: ref.order, type: OPERATION_TYPES[kind], amount: input.amount }, input.signal);
  if (shown === 0) return { status: 'not_found' };
  throw new RedsysUnknownOutcome(`no count taken before sending the ${kind} ${input.reference} is kept, and Redsys shows ${shown} of its amount on order ${ref.order}: an earlier one cannot be told apart (attention)`);
}

export async function lookup(ctx: RedsysContext, input: LookupInput): Promise<LookupResult> {
  const sent = ctx.sent.get(input.reference);
  if (sent?.kind === 'capture' || sent?.kind === 'refund' || sent?.kind === 'void') return lookupOperation(ctx, input.reference, sent, input.signal);
  const kind = input.kind ?? sent?.kind;
  if (kind === 'store') throw new RedsysUnknownOutcome(`only Redsys's notification carries the card stored for ${input.reference} (the query service does not): attention`);
  // Only a payment on Redsys's page: a stored-card charge is answered by REST, and one whose answer was lost stays for a person.
  if (kind === 'pay' && !ctx.settings.query_service) throw new GatewayNotificationOnly(`the terminal has no query service: only Redsys's notification tells what became of ${input.reference}`);
  if (kind === 'capture' || kind === 'refund' || kind === 'void') {
    const kept = await ctx.operations.recall(input.reference);
    if (kept?.kind === kind) return lookupOperation(ctx, input.reference, kept, input.signal);
    return lookupUncounted(ctx, kind, input);
  }
  return lookupPayment(ctx, input);
}
