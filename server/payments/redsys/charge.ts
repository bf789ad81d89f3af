import type { NotActed, SettledResult } from '../gateway';
import { type Answer, cardOf, checkAnswer, RedsysMismatch } from './answers';
import { rest } from './client';
import { CURRENCY_CODES, paymentMeaning } from './codes';
import type { RedsysContext } from './context';
import { claimedOrderNumber } from './order';
import { queryOperations } from './query';
import { paymentRef, readPaymentRef } from './references';

// A merchant-initiated charge of a stored card (an authorization's reference, made by a
// hold that asked Redsys to store the card: pay.ts), sent by REST with the fields Redsys
// requires for it: the card's identifier (DS_MERCHANT_IDENTIFIER), a later credential-on-file
// use (COF_INI N, COF_TYPE C: unscheduled) tied to the network transaction of the first
// (COF_TXNID), the MIT exemption (EXCEP_SCA MIT) and no authentication page
// (DIRECTPAYMENT true). A charge is a payment, so Redsys refuses a repeated order with
// SIS0051: a resend of the same reference (same order) then means "already sent", and the
// query must show the same amount and currency before it is believed.

const SETTLED_TYPES = ['0'];

function settled(answer: Answer, ref: Parameters<typeof paymentRef>[0]): SettledResult {
  const card = cardOf(answer);
  const meaning = paymentMeaning(answer.Ds_Response);
  return meaning === 'approved' ? { outcome: 'approved', reference: paymentRef(ref), card, authentication: { status: 'exempt', method: 'merchant_initiated' } } : { outcome: meaning, card };
}

/** After SIS0051: what the query shows for the order, which must be our amount and currency, else a mismatch. */
async function repeated(ctx: RedsysContext, order: string, expected: { amount: number; currencyCode: string }, signal: AbortSignal): Promise<Answer> {
  const [first, ...more] = await queryOperations(ctx, order, '0', signal);
  if (!first) throw new RedsysMismatch('the payment of order ' + order, 'one payment after SIS0051', 'none');
  if (more.length > 0) throw new RedsysMismatch('the payments of order ' + order, 'one payment', more.length + 1);
  checkAnswer(first, { merchantCode: ctx.settings.merchant_code, terminal: ctx.settings.terminal, order, amount: expected.amount, currencyCode: expected.currencyCode });
  return first;
}

export async function charge(ctx: RedsysContext, input: { reference: string; signal: AbortSignal; method: string; amount: number; currency: string }): Promise<SettledResult | NotActed> {
  const stored = readPaymentRef(input.method)?.stored;
  if (!stored) return { outcome: 'not_acted', reason: 'not a card Redsys stored for this connector (a hold that stored it gives its identifier)' };
  const currencyCode = CURRENCY_CODES[input.currency];
  if (!currencyCode || !ctx.settings.currencies.includes(input.currency)) return { outcome: 'not_acted', reason: `this Redsys terminal does not take ${input.currency}` };
  const { settings } = ctx;
  const order = await claimedOrderNumber(ctx.claimOrder, input.reference);
  if (!order) return { outcome: 'not_acted', reason: 'every order number this charge may take is in use on the terminal' };
  ctx.sent.remember(input.reference, { kind: 'charge', order, amount: input.amount, currencyCode, type: '0', at: ctx.now().getTime() });
  const answer = await rest(
    ctx,
    {
      DS_MERCHANT_AMOUNT: String(input.amount),
      DS_MERCHANT_ORDER: order,
      DS_MERCHANT_MERCHANTCODE: settings.merchant_code,
      DS_MERCHANT_CURRENCY: currencyCode,
      DS_MERCHANT_TRANSACTIONTYPE: '0',
      DS_MERCHANT_TERMINAL: settings.terminal,
      DS_MERCHANT_MERCHANTDATA: input.reference,
      DS_MERCHANT_IDENTIFIER: stored.identifier,
      DS_MERCHANT_COF_INI: 'N',
      DS_MERCHANT_COF_TYPE: 'C',
      DS_MERCHANT_COF_TXNID: stored.cofTxnid,
      DS_MERCHANT_EXCEP_SCA: 'MIT',
      DS_MERCHANT_DIRECTPAYMENT: 'true',
    },
    input.signal,
  );
  const ref = { order, currencyCode, stored };
  if ('errorCode' in answer) {
    if (answer.errorCode !== 'SIS0051') return { outcome: 'not_acted', reason: `Redsys refused the charge (${answer.errorCode})` };
    return settled(await repeated(ctx, order, { amount: input.amount, currencyCode }, input.signal), ref);
  }
  checkAnswer(answer.answer, { merchantCode: settings.merchant_code, terminal: settings.terminal, order, amount: input.amount, currencyCode, types: SETTLED_TYPES });
  return settled(answer.answer, ref);
}
