import type { RedsysError } from './books';
import type { Signed } from './params';

// The double's payment page: what the customer sees at Redsys, reduced to a form a browser
// (a later Playwright test) or a test's direct POST can drive. Card payments offer approve,
// deny and insufficient funds; Bizum (DS_MERCHANT_PAYMETHODS z) offers approve and deny.

export interface PendingPayment {
  session: string;
  signed: Signed;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function decisionPage(p: PendingPayment): string {
  const params = p.signed.params;
  const bizum = params.DS_MERCHANT_PAYMETHODS === 'z';
  const amount = (Number(params.DS_MERCHANT_AMOUNT) / 100).toFixed(2);
  const button = (decision: string, label: string) => `<button type="submit" name="decision" value="${decision}">${label}</button>`;
  const buttons = [button('approve', bizum ? 'Pay with Bizum' : 'Approve'), button('deny', 'Deny'), ...(bizum ? [] : [button('insufficient', 'Insufficient funds')])];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redsys double: ${bizum ? 'Bizum' : 'card'} payment</title></head><body>
<main><h1>${bizum ? 'Bizum' : 'Card'} payment</h1><p>Order <span data-order>${escape(params.DS_MERCHANT_ORDER!)}</span>, amount <span data-amount>${amount}</span> (${escape(params.DS_MERCHANT_CURRENCY!)})</p>
<form method="post" action="/sis/double/decide"><input type="hidden" name="session" value="${p.session}">${buttons.join('')}</form></main></body></html>`;
}

export function errorPage(error: RedsysError): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redsys double: error</title></head><body><main><h1>Error</h1><p data-error-code>${escape(error.code)}</p><p>${escape(error.message)}</p></main></body></html>`;
}
