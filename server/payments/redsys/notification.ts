import type { GatewayNotification, NotActed, ReturnInput, SettledResult } from '../gateway';
import { type Answer, cardOf, checkAnswer, readAnswer } from './answers';
import { verified } from './client';
import { paymentMeaning } from './codes';
import { lookup } from './lookup';
import type { RedsysContext } from './context';
import { ORDER_ATTEMPTS, orderNumber } from './order';
import { paymentRef } from './references';

// Redsys's signed asynchronous notification (DS_MERCHANT_MERCHANTURL), the truth about a
// payment, and the customer's return to URLOK / URLKO, which is not. Both carry the same
// three fields; both are verified on what arrived, before anything is read: the configured
// Ds_SignatureVersion only (a notification signed with another version is refused: no
// downgrade), the signature for the order inside compared in constant time, this terminal's
// merchant code and terminal, and our reference in Ds_MerchantData naming that very order.
// What fails any of it is `null`: answered 400 at the processor's route, nothing recorded.

function fieldsOf(headers: Record<string, string | string[] | undefined>, body: Buffer): Record<string, string> | null {
  const type = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const text = body.toString('utf8');
  try {
    if (type === 'application/json') return JSON.parse(text) as Record<string, string>;
    // Base64 holds no space, so a '+' a form decoder turned into one is put back.
    return Object.fromEntries([...new URLSearchParams(text)].map(([k, v]) => [k, v.replaceAll(' ', '+')]));
  } catch {
    return null;
  }
}

/** The verified payment answer of three signed fields, with our reference, or null. */
function authenticPayment(ctx: RedsysContext, fields: Record<string, unknown>): { answer: Answer; reference: string } | null {
  const decoded = verified(ctx, fields);
  if (!decoded) return null;
  const parsed = (() => {
    try {
      return readAnswer(decoded, 'the notification');
    } catch {
      return null;
    }
  })();
  const reference = parsed?.Ds_MerchantData;
  if (!parsed || !reference) return null;
  // Our reference may have taken a later attempt's order number (order.ts): each is tried.
  if (!Array.from({ length: ORDER_ATTEMPTS }, (_, i) => orderNumber(reference, i)).includes(parsed.Ds_Order)) return null;
  try {
    checkAnswer(parsed, { merchantCode: ctx.settings.merchant_code, terminal: ctx.settings.terminal, order: parsed.Ds_Order, types: ['0', '1'] });
  } catch {
    return null;
  }
  return { answer: parsed, reference };
}

export async function notification(ctx: RedsysContext, input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<GatewayNotification | null> {
  const fields = fieldsOf(input.headers, input.body);
  const found = fields && authenticPayment(ctx, fields);
  if (!found) return null;
  const { answer, reference } = found;
  // What this process sent must be what Redsys took; a payment we do not remember is checked by the service against its own call.
  const sent = ctx.sent.get(reference);
  if (sent && sent.kind !== 'capture' && sent.kind !== 'refund' && sent.kind !== 'void') checkAnswer(answer, { merchantCode: ctx.settings.merchant_code, terminal: ctx.settings.terminal, order: sent.order, amount: sent.amount, currencyCode: sent.currencyCode });
  const card = cardOf(answer);
  const meaning = paymentMeaning(answer.Ds_Response);
  if (meaning !== 'approved') return { reference, result: { status: 'failed', reason: meaning, card } };
  const stored = answer.Ds_Merchant_Identifier && answer.Ds_Merchant_Cof_Txnid ? { identifier: answer.Ds_Merchant_Identifier, cofTxnid: answer.Ds_Merchant_Cof_Txnid } : undefined;
  // A validation (amount 0) is only ever sent to store the card (store.ts): approved without the card's identifier, nothing was stored.
  if (!stored && Number(answer.Ds_Amount) === 0) return { reference, result: { status: 'failed', reason: 'declined', card } };
  return { reference, result: { status: 'succeeded', reference: paymentRef({ order: answer.Ds_Order, currencyCode: answer.Ds_Currency.padStart(3, '0'), ...(stored ? { stored } : {}) }), card } };
}

/**
 * The customer's return to URLOK / URLKO, with Redsys's parameters. It never settles
 * anything by itself: a browser's word is not Redsys's, and URLOK is reached before the
 * notification arrives. Verified, it only triggers a query (when the terminal has the
 * service), whose answer is Redsys's own; otherwise it is `pending` until the notification
 * or the reconciliation's lookup (without the service, the notification or the end of the
 * redirect's wait: payments/reconcile.ts). A return that does not verify, or names another call, is
 * `not_acted`: nothing settles.
 */
export async function customerReturn(ctx: RedsysContext, input: ReturnInput): Promise<SettledResult | { outcome: 'pending' } | NotActed> {
  const fields = Object.keys(input.body).length > 0 ? input.body : input.query;
  const found = authenticPayment(ctx, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.replaceAll(' ', '+')])));
  if (!found || found.reference !== input.reference) return { outcome: 'not_acted', reason: "the return does not carry Redsys's valid signature for this call" };
  if (!ctx.settings.query_service) return { outcome: 'pending' };
  const asked = await lookup(ctx, { reference: input.reference, signal: input.signal, processorId: found.answer.Ds_Order, kind: 'pay' });
  if (asked.status === 'succeeded') return { outcome: 'approved', reference: asked.reference, card: asked.card };
  if (asked.status === 'failed') return { outcome: asked.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined', card: asked.card };
  return { outcome: 'pending' };
}
