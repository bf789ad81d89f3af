import { z } from 'zod';
import { type CardSummary, GatewayAttention, GatewayMismatch } from '../gateway';
import { responseCode } from './codes';

// What the connector reads from Redsys (REST answers, notifications, the customer's return,
// the query service), parsed with zod, and checked against its request before anything is
// believed: the order, the amount, the currency, the merchant code and terminal, the
// transaction type. An answer that cannot be read or does not match is a `RedsysMismatch`:
// never recorded, never retried; the caller sends the call to `attention`.

export class RedsysMismatch extends GatewayMismatch {
  constructor(field: string, expected: unknown, received: unknown) {
    super('Redsys', field, expected, received);
  }
}

/**
 * The outcome of an operation that cannot be re-sent safely is unknown and no query can
 * settle it (the terminal has no query service): the caller must send it to `attention`,
 * never to Redsys again (docs/processors.md "Operations that are not idempotent").
 */
export class RedsysUnknownOutcome extends GatewayAttention {
  constructor(message: string) {
    super(message);
    this.name = 'RedsysUnknownOutcome';
  }
}

const digits = z.union([z.string(), z.number()]).transform((v) => String(v).trim()).pipe(z.string().regex(/^\d+$/));
/** Redsys URL-encodes some values in notifications (dates, hours, Ds_MerchantData). */
const text = z.union([z.string(), z.number()]).transform((v) => {
  try {
    return decodeURIComponent(String(v));
  } catch {
    return String(v);
  }
});

/** Ds_ parameters of an answer to a payment or an operation (names as Redsys spells them; Ds_Card_Number and Ds_CardNumber both occur). */
const answerSchema = z.looseObject({
  Ds_Amount: digits,
  Ds_Currency: digits,
  Ds_Order: z.string(),
  Ds_MerchantCode: digits,
  Ds_Terminal: digits,
  Ds_Response: z.unknown().transform((v, ctx) => responseCode(v) ?? (ctx.addIssue({ code: 'custom', message: 'Ds_Response is not a code' }), z.NEVER)),
  Ds_TransactionType: z.union([z.string(), z.number()]).transform(String),
  Ds_AuthorisationCode: text.optional(),
  Ds_MerchantData: text.optional(),
  Ds_Card_Number: z.string().optional(),
  Ds_CardNumber: z.string().optional(),
  Ds_Card_Brand: text.optional(),
  Ds_Merchant_Identifier: text.optional(),
  Ds_Merchant_Cof_Txnid: text.optional(),
});

export type Answer = z.infer<typeof answerSchema>;

/** Reads an answer's parameters; what cannot be read is not believed. */
export function readAnswer(value: unknown, what: string): Answer {
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success) throw new RedsysMismatch(what, 'parameters as Redsys documents them', z.prettifyError(parsed.error));
  return parsed.data;
}

/** Throws unless `received` is `expected`. */
export function same(field: string, expected: unknown, received: unknown): void {
  if (expected !== received) throw new RedsysMismatch(field, expected, received);
}

export interface Expected {
  merchantCode: string;
  terminal: string;
  order: string;
  amount?: number;
  currencyCode?: string;
  /** The transaction types the answer may carry. */
  types?: readonly string[];
}

/** Checks an answer against what was asked: terminals are compared as numbers (Redsys answers "001" for "1"). */
export function checkAnswer(answer: Answer, expected: Expected): void {
  same('Ds_MerchantCode', expected.merchantCode, answer.Ds_MerchantCode);
  same('Ds_Terminal', Number(expected.terminal), Number(answer.Ds_Terminal));
  same('Ds_Order', expected.order, answer.Ds_Order);
  if (expected.amount !== undefined) same('Ds_Amount', expected.amount, Number(answer.Ds_Amount));
  if (expected.currencyCode !== undefined) same('Ds_Currency', expected.currencyCode, answer.Ds_Currency.padStart(3, '0'));
  if (expected.types && !expected.types.includes(answer.Ds_TransactionType)) throw new RedsysMismatch('Ds_TransactionType', expected.types, answer.Ds_TransactionType);
}

/** The masked card of an answer (Redsys shows the first six and last four digits). */
export function cardOf(answer: Answer): CardSummary | null {
  const number = answer.Ds_Card_Number ?? answer.Ds_CardNumber;
  if (!number) return null;
  const last4 = /(\d{4})$/.exec(number)?.[1] ?? null;
  return { brand: answer.Ds_Card_Brand ?? null, last4, expMonth: null, expYear: null };
}
