import type { ChallengeRequired, NotActed, RedirectTo, StoreInput } from '../gateway';
import { CURRENCY_CODES } from './codes';
import type { RedsysContext } from './context';
import { claimedOrderNumber } from './order';
import { pageRedirect } from './pay';

// Saving a card without charging it (the hosted save page): the customer gives it on
// Redsys's page, as for a payment (pay.ts), in a validation of amount 0 that asks Redsys to
// store it (DS_MERCHANT_IDENTIFIER REQUIRED, the first credential-on-file use: COF_INI S,
// COF_TYPE C). To the service it is the store's challenge, a POST redirect. Only Redsys's
// signed notification says whether the card was stored, and only it carries the card's
// identifier and the network's transaction id that later charges need (notification.ts):
// the query service does not, so there is no `resume`, and a store is never looked up.

export type StoreRedirect = ChallengeRequired & { redirect: RedirectTo & { method: 'POST' }; processorId: string };

export async function redirectStore(ctx: RedsysContext, input: StoreInput): Promise<StoreRedirect | NotActed> {
  if (Object.keys(input.fields).length > 0) return { outcome: 'not_acted', reason: "card numbers are never sent to Redsys through us: the card is given on Redsys's page" };
  if (!input.returnUrl) return { outcome: 'not_acted', reason: "a card is saved with Redsys on Redsys's page, which needs a page to return to (the hosted save page)" };
  // A validation moves no money; the terminal's first currency names it.
  const currency = ctx.settings.currencies[0]!;
  const currencyCode = CURRENCY_CODES[currency];
  if (!currencyCode) return { outcome: 'not_acted', reason: `this Redsys terminal does not take ${currency}` };
  const order = await claimedOrderNumber(ctx.claimOrder, input.reference);
  if (!order) return { outcome: 'not_acted', reason: 'every order number this card may take is in use on the terminal' };
  ctx.sent.remember(input.reference, { kind: 'store', order, amount: 0, currencyCode, type: '0', at: ctx.now().getTime() });
  const page = pageRedirect(ctx, { reference: input.reference, order, amount: 0, currencyCode, type: '0', method: 'card', returnUrl: input.returnUrl, language: input.language }, true);
  return { outcome: 'challenge', challenge: order, processorId: order, redirect: page.redirect };
}
