import type { NotActed, PayInput, RedirectRequired, RedirectTo } from '../gateway';
import { CURRENCY_CODES, type PaymentType } from './codes';
import type { RedsysContext } from './context';
import { signed } from './client';
import { claimedOrderNumber } from './order';

// A payment by redirect: the page posts the customer's browser to Redsys's payment page
// with the three signed fields, and the bank runs 3-D Secure there (or Bizum asks the
// customer's phone). Nothing is sent from our server, so `pay` cannot know the outcome: only
// the signed asynchronous notification, or a query, tells (notification.ts, lookup.ts). The
// order number is derived from our reference and claimed on the terminal before the
// customer is sent (order.ts), and our reference travels in
// Ds_Merchant_MerchantData, which Redsys echoes in its notification. The call's return
// route (`returnUrl`) is both URLOK and URLKO: what comes back goes to `return`.

/** The interface's redirect, as Redsys's page needs it: a POST of the three signed fields, and the order as processor id. */
export interface RedirectResult extends RedirectRequired {
  redirect: RedirectTo & { method: 'POST'; fields: { Ds_SignatureVersion: string; Ds_MerchantParameters: string; Ds_Signature: string } };
  /** The Redsys order number: the processor's id of the payment, recorded on the call and given back to `lookup`. */
  processorId: string;
}

/** Redsys's consumer languages (DS_MERCHANT_CONSUMERLANGUAGE) for the page's four. */
const LANGUAGES: Record<string, string> = { es: '001', en: '002', au: '002', fr: '004' };

export type Method = 'card' | 'bizum';

/** What Redsys would refuse, or Bizum cannot do, refused before the customer is sent anywhere. */
function refusal(ctx: RedsysContext, input: PayInput, method: Method): NotActed | null {
  const refuse = (reason: string): NotActed => ({ outcome: 'not_acted', reason });
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) return refuse(`${input.amount} is not an amount Redsys takes`);
  if (method === 'bizum' && input.currency !== 'EUR') return refuse('Bizum takes euros only');
  if (method === 'bizum' && !input.capture) return refuse('Bizum cannot hold funds: a Bizum payment is captured at once');
  if (!ctx.settings.currencies.includes(input.currency) || !CURRENCY_CODES[input.currency]) return refuse(`this Redsys terminal does not take ${input.currency}`);
  return null;
}

/** DS_MERCHANT_MERCHANTURL: the configured URL, else the path on the return route's origin (the same host the customer comes back to). */
function notifiedAt(settings: RedsysContext['settings'], returnUrl: string | undefined): { DS_MERCHANT_MERCHANTURL?: string } {
  if (settings.notificationUrl) return { DS_MERCHANT_MERCHANTURL: settings.notificationUrl };
  return settings.notificationPath && returnUrl ? { DS_MERCHANT_MERCHANTURL: new URL(settings.notificationPath, returnUrl).toString() } : {};
}

/** What Redsys's page is posted for one of our references: a payment, a hold, or a card's validation (store.ts). */
export interface PageRequest {
  reference: string;
  order: string;
  amount: number;
  currencyCode: string;
  type: PaymentType;
  method: Method;
  returnUrl?: string | undefined;
  language?: string | undefined;
}

/** The page's signed fields for `r`, the credential-on-file fields added when the card is to be stored. */
export function pageRedirect(ctx: RedsysContext, r: PageRequest, storeCard: boolean): RedirectResult {
  const { settings } = ctx;
  const parameters: Record<string, string> = {
    DS_MERCHANT_AMOUNT: String(r.amount),
    DS_MERCHANT_ORDER: r.order,
    DS_MERCHANT_MERCHANTCODE: settings.merchant_code,
    DS_MERCHANT_CURRENCY: r.currencyCode,
    DS_MERCHANT_TRANSACTIONTYPE: r.type,
    DS_MERCHANT_TERMINAL: settings.terminal,
    DS_MERCHANT_MERCHANTDATA: r.reference,
    // 'z' shows Bizum only; 'C' the card form only, so one gateway never turns into the other.
    DS_MERCHANT_PAYMETHODS: r.method === 'bizum' ? 'z' : 'C',
    ...notifiedAt(settings, r.returnUrl),
    ...(r.returnUrl ? { DS_MERCHANT_URLOK: r.returnUrl, DS_MERCHANT_URLKO: r.returnUrl } : {}),
    ...(r.language && LANGUAGES[r.language] ? { DS_MERCHANT_CONSUMERLANGUAGE: LANGUAGES[r.language]! } : {}),
    // Redsys answers an identifier and the network's transaction id, which later MIT charges need (charge.ts).
    ...(storeCard ? { DS_MERCHANT_IDENTIFIER: 'REQUIRED', DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' } : {}),
  };
  return { outcome: 'redirect', redirect: { url: settings.urls.redirect, method: 'POST', fields: signed(ctx, parameters) }, processorId: r.order };
}

export async function redirectPay(ctx: RedsysContext, input: PayInput, method: Method): Promise<RedirectResult | NotActed> {
  const refused = refusal(ctx, input, method);
  if (refused) return refused;
  const order = await claimedOrderNumber(ctx.claimOrder, input.reference);
  if (!order) return { outcome: 'not_acted', reason: 'every order number this payment may take is in use on the terminal' };
  const currencyCode = CURRENCY_CODES[input.currency]!;
  const type = input.capture ? '0' : '1';
  ctx.sent.remember(input.reference, { kind: 'pay', order, amount: input.amount, currencyCode, type, at: ctx.now().getTime() });
  // A hold stores the card for the merchant's later charges (an authorization).
  return pageRedirect(ctx, { reference: input.reference, order, amount: input.amount, currencyCode, type, method, returnUrl: input.returnUrl, language: input.language }, type === '1');
}
