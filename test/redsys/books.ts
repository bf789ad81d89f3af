import { randomBytes, randomInt } from 'node:crypto';

// What the Redsys double holds, per terminal: each order's payment (or pre-authorisation)
// and every operation on it, the cards stored for later charges. Operations are carried out
// every time they are asked, as Redsys does: a refund sent twice is two refunds.

export type SignatureVersion = 'HMAC_SHA256_V1' | 'HMAC_SHA512_V2';

export interface Terminal {
  merchantCode: string;
  terminal: string;
  secretKey: string;
  /** The version its notifications and answers are signed with. */
  signatureVersion: SignatureVersion;
  /** Whether the bank enabled the query service on it. */
  queryService: boolean;
}

export interface Operation {
  type: '0' | '1' | '2' | '3' | '9';
  amount: number;
  currency: string;
  response: string;
  authorisationCode: string;
  merchantData: string;
  at: Date;
}

export interface Order {
  terminal: Terminal;
  order: string;
  payment: Operation;
  /** The card of a payment (masked as Redsys shows it). */
  card: string;
  operations: Operation[];
  stored?: { identifier: string; cofTxnid: string };
}

/** Refusals with Redsys's code (or, where Redsys's exact code was not confirmed, the double's own: docs/processors.md). */
export class RedsysError extends Error {
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

export const CODES = {
  signature: 'SIS0042',
  repeatedOrder: 'SIS0051',
  noPaymentToRefund: 'SIS0054',
  overRefund: 'SIS0057',
  noHoldToConfirm: 'SIS0059',
  unknownTerminal: 'SIS0026',
  // The double's own numbers for refusals whose exact Redsys code we could not confirm.
  unknownParameter: 'SIS9901',
  badParameter: 'SIS9902',
  storedCardFields: 'SIS9903',
  nothingToCancel: 'SIS9904',
  noQueryService: 'XML9905',
  noOperation: 'XML0024',
} as const;

const approved = (op: Operation, code: string) => op.response === code;

export function openBooks() {
  const orders = new Map<string, Order>();
  const cards = new Map<string, { terminal: Terminal; cofTxnid: string }>();
  const key = (t: Terminal, order: string) => `${t.merchantCode}:${Number(t.terminal)}:${order}`;
  const op = (type: Operation['type'], amount: number, currency: string, response: string, merchantData = ''): Operation => ({
    type, amount, currency, response, merchantData, authorisationCode: String(randomInt(100000, 999999)), at: new Date(),
  });

  /** Captured so far: a payment's amount, or a hold's confirmations; less what was refunded. */
  const refundable = (o: Order) => {
    const captured = o.payment.type === '0' ? o.payment.amount : o.operations.filter((x) => x.type === '2' && approved(x, '0900')).reduce((s, x) => s + x.amount, 0);
    return captured - o.operations.filter((x) => x.type === '3' && approved(x, '0900')).reduce((s, x) => s + x.amount, 0);
  };
  const held = (o: Order) =>
    o.payment.type !== '1' || !approved(o.payment, '0000') || o.operations.some((x) => x.type === '9' && approved(x, '0400'))
      ? 0
      : o.payment.amount - o.operations.filter((x) => x.type === '2' && approved(x, '0900')).reduce((s, x) => s + x.amount, 0);

  return {
    orders,
    cards,
    find: (t: Terminal, order: string) => orders.get(key(t, order)),
    used: (t: Terminal, order: string) => orders.has(key(t, order)),
    /** A payment or hold decided on the page, or a stored-card charge. */
    pay(t: Terminal, input: { order: string; type: '0' | '1'; amount: number; currency: string; response: string; merchantData: string; store: boolean }): Order {
      if (orders.has(key(t, input.order))) throw new RedsysError(CODES.repeatedOrder, `order ${input.order} was used before on this terminal`);
      const last4 = String(randomInt(0, 10_000)).padStart(4, '0');
      const entry: Order = { terminal: t, order: input.order, payment: op(input.type, input.amount, input.currency, input.response, input.merchantData), card: `454881******${last4}`, operations: [] };
      if (input.store && input.response === '0000') {
        entry.stored = { identifier: randomBytes(20).toString('hex'), cofTxnid: String(randomInt(100_000_000, 999_999_999)) + String(randomInt(100_000, 999_999)) };
        cards.set(entry.stored.identifier, { terminal: t, cofTxnid: entry.stored.cofTxnid });
      }
      orders.set(key(t, input.order), entry);
      return entry;
    },
    /** A confirmation (2), refund (3) or cancellation (9): carried out every time it is asked. */
    operate(t: Terminal, input: { order: string; type: '2' | '3' | '9'; amount: number; currency: string }): { order: Order; operation: Operation } {
      const found = orders.get(key(t, input.order));
      const fail = (code: string, why: string) => new RedsysError(code, why);
      if (!found || found.payment.response !== '0000') throw fail(input.type === '3' ? CODES.noPaymentToRefund : CODES.noHoldToConfirm, `no approved operation on order ${input.order}`);
      if (input.currency !== found.payment.currency) throw fail(CODES.badParameter, `the currency is not the payment's (${found.payment.currency})`);
      if (input.type === '3' && input.amount > refundable(found)) throw fail(CODES.overRefund, `${input.amount} is more than the ${refundable(found)} left to refund`);
      if (input.type === '2' && (held(found) === 0 || input.amount > held(found))) throw fail(CODES.noHoldToConfirm, `order ${input.order} holds ${held(found)}`);
      if (input.type === '9' && (held(found) === 0 || input.amount !== held(found))) throw fail(CODES.nothingToCancel, `order ${input.order} holds ${held(found)} to cancel`);
      const operation = op(input.type, input.amount, input.currency, input.type === '9' ? '0400' : '0900');
      found.operations.push(operation);
      return { order: found, operation };
    },
  };
}

export type Books = ReturnType<typeof openBooks>;
