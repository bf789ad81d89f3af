// The processor's reference of a Redsys payment, as recorded on a sale or an authorization:
// `order:currency` (the numeric currency Redsys answered), and for a card stored for later
// charges also `:identifier:cofTxnid` (Ds_Merchant_Identifier and Ds_Merchant_Cof_Txnid of
// the payment that stored it). Redsys needs the currency on every operation and the
// ActionInput carries none, so it travels in the reference the service records anyway.

export interface PaymentRef {
  order: string;
  currencyCode: string;
  stored?: { identifier: string; cofTxnid: string };
}

export const paymentRef = (ref: PaymentRef): string => [ref.order, ref.currencyCode, ...(ref.stored ? [ref.stored.identifier, ref.stored.cofTxnid] : [])].join(':');

/** Reads a reference this connector made; null for anything else. */
export function readPaymentRef(text: string): PaymentRef | null {
  const [order, currencyCode, identifier, cofTxnid, ...rest] = text.split(':');
  if (!order || !/^\d{4}[A-Za-z0-9]{0,8}$/.test(order) || !currencyCode || !/^\d{3}$/.test(currencyCode) || rest.length > 0) return null;
  if (identifier === undefined) return { order, currencyCode };
  return identifier && cofTxnid ? { order, currencyCode, stored: { identifier, cofTxnid } } : null;
}
