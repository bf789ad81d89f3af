import type { ActionInput, ActionResult, NotActed } from '../gateway';
import { checkAnswer, RedsysUnknownOutcome } from './answers';
import { rest } from './client';
import { type OperationType, operationApproved } from './codes';
import type { OperationSent as ActionSent, RedsysContext } from './context';
import { queryOperations } from './query';
import { readPaymentRef } from './references';

// Confirmation (capture, type 2), cancellation (void, 9) and refund (3), through REST.
// **Redsys does not deduplicate them**: a refund or confirmation sent twice on one order is
// carried out twice, and SIS0051 ("order repeated") only concerns payments. So:
//
// 1. At most one of them in flight per order in this process (`inFlight`), and none while
//    one of unknown outcome waits on the order (`unresolved`); the service's reservation
//    keeps it to one across processes (docs/processors.md).
// 2. Before the first send, the query service counts the approved operations of that type
//    and amount on the order (`before`), and what is sent is kept with that count where a
//    process started after a crash finds it (`ctx.operations`: the service's database).
// 3. A reference sent before whose answer never came is not sent again blindly: the query
//    counts them again, and one more than `before` is ours, answered as done. Only when the
//    count did not move is it sent again. The same settles a lookup (lookup.ts).
// 4. Without the query service nothing can prove it: `RedsysUnknownOutcome`, which the
//    caller sends to `attention`, and Redsys is never asked again.

type Kind = 'capture' | 'refund' | 'void';
/** Each operation's Redsys transaction type. */
export const OPERATION_TYPES = { capture: '2', refund: '3', void: '9' } as const satisfies Record<Kind, OperationType>;

const notActed = (reason: string): NotActed => ({ outcome: 'not_acted', reason });

/** How many approved operations of this type and amount Redsys shows on the order. */
export async function approvedCount(ctx: RedsysContext, sent: Pick<ActionSent, 'order' | 'type' | 'amount'>, signal: AbortSignal): Promise<number> {
  const operations = await queryOperations(ctx, sent.order, sent.type, signal);
  return operations.filter((op) => Number(op.Ds_Amount) === sent.amount && operationApproved(sent.type, op.Ds_Response)).length;
}

/** The count before a first send; a query that fails then has sent nothing, so it is `not_acted`, not unknown. */
async function countBefore(ctx: RedsysContext, sent: Pick<ActionSent, 'order' | 'type' | 'amount'>, signal: AbortSignal): Promise<number | NotActed> {
  try {
    return await approvedCount(ctx, sent, signal);
  } catch (error) {
    return notActed(`Redsys's query service could not count the operations on order ${sent.order} before sending (${(error as Error).message}): nothing was sent`);
  }
}

/** An operation sent before without an answer: found by the query (done), or null when it surely was not made. */
async function recheck(ctx: RedsysContext, reference: string, sent: ActionSent, signal: AbortSignal): Promise<ActionResult | null> {
  if (!ctx.settings.query_service || sent.before === null) {
    throw new RedsysUnknownOutcome(`the ${sent.kind} ${reference} of order ${sent.order} was sent and its answer lost, and this terminal has no query service: it must not be sent again (attention)`);
  }
  const count = await approvedCount(ctx, sent, signal);
  if (count > sent.before) return { ok: true, reference: `${sent.order}:${sent.type}:${count}` };
  return null;
}

async function send(ctx: RedsysContext, input: ActionInput, sent: ActionSent): Promise<ActionResult | NotActed> {
  const { settings } = ctx;
  const answer = await rest(
    ctx,
    {
      DS_MERCHANT_AMOUNT: String(input.amount),
      DS_MERCHANT_ORDER: sent.order,
      DS_MERCHANT_MERCHANTCODE: settings.merchant_code,
      DS_MERCHANT_CURRENCY: sent.currencyCode,
      DS_MERCHANT_TRANSACTIONTYPE: sent.type,
      DS_MERCHANT_TERMINAL: settings.terminal,
    },
    input.signal,
  );
  if ('errorCode' in answer) return notActed(`Redsys refused the ${sent.kind} (${answer.errorCode})`);
  const made = answer.answer;
  checkAnswer(made, { merchantCode: settings.merchant_code, terminal: settings.terminal, order: sent.order, amount: input.amount, currencyCode: sent.currencyCode, types: [sent.type] });
  if (!operationApproved(sent.type, made.Ds_Response)) return { ok: false, reason: `Redsys did not make the ${sent.kind} (Ds_Response ${made.Ds_Response})` };
  // The operation's own reference: its place among those of its type and amount (what a re-check finds), else Redsys's authorisation code.
  return { ok: true, reference: `${sent.order}:${sent.type}:${sent.before === null ? (made.Ds_AuthorisationCode ?? 'made') : sent.before + 1}` };
}

export async function operate(ctx: RedsysContext, kind: Kind, input: ActionInput): Promise<ActionResult | NotActed> {
  const ref = readPaymentRef(input.payment);
  if (!ref) return notActed(`${input.payment} is not a Redsys payment of this connector`);
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) return notActed(`${input.amount} is not an amount Redsys takes`);
  const busy = ctx.inFlight.get(ref.order);
  if (busy === input.reference) throw new Error(`the ${kind} ${input.reference} is still in flight: its outcome is not known yet`);
  const waiting = busy ?? ctx.unresolved.get(ref.order);
  if (waiting && waiting !== input.reference) return notActed(`another operation (${waiting}) on Redsys order ${ref.order} is in flight or of unknown outcome: Redsys cannot tell two apart, so one at a time`);
  ctx.inFlight.set(ref.order, input.reference);
  try {
    // Sent before by this process, or by one that died before its answer came.
    const previous = ctx.sent.get(input.reference) ?? (await ctx.operations.recall(input.reference));
    if (previous && previous.kind !== kind) return notActed(`${input.reference} was a ${previous.kind}, not a ${kind}`);
    return await sendOnce(ctx, kind, input, ref, previous as ActionSent | undefined);
  } finally {
    ctx.inFlight.delete(ref.order);
  }
}

/** Steps 2 and 3: the kept answer, or the re-check of an unknown one, or a first (or proven unsent) send. */
async function sendOnce(ctx: RedsysContext, kind: Kind, input: ActionInput, ref: { order: string; currencyCode: string }, previous: ActionSent | undefined): Promise<ActionResult | NotActed> {
  if (previous?.answer) return previous.answer;
  if (previous) {
    const found = await recheck(ctx, input.reference, previous, input.signal);
    if (found) return remember(ctx, input.reference, previous, found);
  }
  const before = ctx.settings.query_service ? await countBefore(ctx, { order: ref.order, type: OPERATION_TYPES[kind], amount: input.amount }, input.signal) : null;
  if (typeof before === 'object' && before !== null) return before;
  const sent: ActionSent = { kind, order: ref.order, amount: input.amount, currencyCode: ref.currencyCode, type: OPERATION_TYPES[kind], before, at: ctx.now().getTime() };
  try {
    await ctx.operations.keep(input.reference, sent);
  } catch (error) {
    return notActed(`what the ${kind} would send could not be kept (${(error as Error).message}): nothing was sent`);
  }
  ctx.sent.remember(input.reference, sent);
  // Unknown until an answer arrives: a throw below leaves the order waiting on this reference.
  ctx.unresolved.set(ref.order, input.reference);
  return remember(ctx, input.reference, sent, await send(ctx, input, sent));
}

/** A definite answer is kept, so the same reference again answers it without asking Redsys, and the order is free again. */
function remember<T extends NonNullable<ActionSent['answer']>>(ctx: RedsysContext, reference: string, sent: ActionSent, answer: T): T {
  ctx.sent.remember(reference, { ...sent, answer });
  if (ctx.unresolved.get(sent.order) === reference) ctx.unresolved.delete(sent.order);
  return answer;
}

/** What a lookup of an operation answers: its kept answer, or the query's count against `before`. */
export async function lookupOperation(ctx: RedsysContext, reference: string, sent: ActionSent, signal: AbortSignal) {
  if (sent.answer) {
    if ('outcome' in sent.answer) return { status: 'not_found' } as const;
    return sent.answer.ok ? ({ status: 'succeeded', reference: sent.answer.reference, card: null } as const) : ({ status: 'failed', reason: 'refused', card: null } as const);
  }
  const found = await recheck(ctx, reference, sent, signal);
  if (found) remember(ctx, reference, sent, found);
  // Not made: the order is free again (the caller releases the call; a retry would be a new send).
  else if (ctx.unresolved.get(sent.order) === reference) ctx.unresolved.delete(sent.order);
  return found?.ok ? ({ status: 'succeeded', reference: found.reference, card: null } as const) : ({ status: 'not_found' } as const);
}
