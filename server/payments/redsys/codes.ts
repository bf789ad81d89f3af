// What Redsys's `Ds_Response` codes mean, as its published response-code list reads
// (docs/processors.md "Redsys"): 0000–0099 approve a payment or pre-authorisation, 0400
// approves a cancellation, 0900 a confirmation or refund; every other code refuses. Among the
// refusals, 0116 is insufficient funds ("disponible insuficiente"); the rest, including the
// ones Bizum's operations answer, are a plain decline: the customer may try again or pay
// another way, and we do not tell the reasons apart further (fraud-related ones included).

export type ResponseMeaning = 'approved' | 'declined' | 'insufficient_funds';

const INSUFFICIENT_FUNDS = new Set(['0116']);

/** The code as four digits (Redsys sends "0", "0000" or "000"); null when it is not a number. */
export function responseCode(value: unknown): string | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,4}$/.test(text) ? text.padStart(4, '0') : null;
}

/** A payment's (or pre-authorisation's, or stored-card charge's) code. */
export function paymentMeaning(code: string): ResponseMeaning {
  if (Number(code) <= 99) return 'approved';
  return INSUFFICIENT_FUNDS.has(code) ? 'insufficient_funds' : 'declined';
}

/** Whether an operation on a payment (2 confirmation, 3 refund: 0900; 9 cancellation: 0400) was carried out. */
export function operationApproved(transactionType: OperationType, code: string): boolean {
  return transactionType === '9' ? code === '0400' : code === '0900';
}

/** Redsys's transaction types we send: 0 payment, 1 pre-authorisation, 2 confirmation, 3 refund, 9 cancellation. */
export type PaymentType = '0' | '1';
export type OperationType = '2' | '3' | '9';

/** ISO 4217 numeric codes Redsys takes as Ds_Merchant_Currency. */
export const CURRENCY_CODES: Readonly<Record<string, string>> = {
  EUR: '978', USD: '840', GBP: '826', JPY: '392', CHF: '756', SEK: '752', NOK: '578', DKK: '208',
  PLN: '985', CZK: '203', HUF: '348', RON: '946', CAD: '124', AUD: '036', MXN: '484', BRL: '986',
};
