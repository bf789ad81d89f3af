import { invalidParams, missingParameter, unknownParameter } from './errors';
import { EVIDENCE_FILES, EVIDENCE_TEXT } from './disputes';
import type { Form, FormValue } from './form';

// What each endpoint of the double takes, and the parameter checks Stripe makes before an
// endpoint runs: an unknown parameter (at any depth) is a 400 `parameter_unknown` naming it,
// a missing required one `parameter_missing`, an integer that is not one
// `parameter_invalid_integer`, a value outside an enum or a malformed boolean a 400 naming
// the parameter. Only the parameters the connector uses (and their obvious neighbours) are
// known: an unknown one here is a refusal, never silently ignored. The parameters are those
// of the API version the connector pins (2026-10-28.endive), as the official SDK's types
// of that version declare them.

export type Spec =
  | 'string'
  | 'integer'
  | 'boolean'
  /** Up to 50 keys of up to 40 characters, values up to 500. */
  | 'metadata'
  /** A list of strings (`expand[]`, `payment_method_types[]`). */
  | 'strings'
  /** An integer, or a range `{gt, gte, lt, lte}` of them (`created`). */
  | 'range'
  | { enum: readonly string[] }
  /** A list of objects (`line_items[0][quantity]`), each checked like an object. */
  | { listOf: { [key: string]: Spec } }
  | { [key: string]: Spec };

export type Params = { [key: string]: unknown };

const RANGE = { gt: 'integer', gte: 'integer', lt: 'integer', lte: 'integer' } as const;
const LIST = { limit: 'integer', starting_after: 'string', expand: 'strings' } as const;

export const ENDPOINTS = {
  createPaymentIntent: {
    amount: 'integer',
    currency: 'string',
    payment_method: 'string',
    confirm: 'boolean',
    capture_method: { enum: ['automatic', 'automatic_async', 'manual'] },
    confirmation_method: { enum: ['automatic', 'manual'] },
    customer: 'string',
    // Under 2026-10-28.endive: true / false, or which kind of off-session payment.
    off_session: { enum: ['true', 'false', 'one_off', 'recurring'] },
    setup_future_usage: { enum: ['off_session', 'on_session'] },
    metadata: 'metadata',
    description: 'string',
    // Known, so that a card PaymentIntent's is refused as Stripe refuses it (payment-intents.ts), not as unknown.
    statement_descriptor: 'string',
    statement_descriptor_suffix: 'string',
    // 2026-10-28.endive replaced `payment_method_types` with `allowed_payment_method_types`: the old name is unknown.
    allowed_payment_method_types: 'strings',
    automatic_payment_methods: { enabled: 'boolean', allow_redirects: { enum: ['always', 'never'] } },
    return_url: 'string',
    error_on_requires_action: 'boolean',
    receipt_email: 'string',
    expand: 'strings',
  },
  retrieve: { expand: 'strings' },
  // Confirming again with the customer present (a saved card's off-session charge that needed authentication).
  confirmPaymentIntent: {
    payment_method: 'string',
    return_url: 'string',
    off_session: { enum: ['true', 'false', 'one_off', 'recurring'] },
    setup_future_usage: { enum: ['off_session', 'on_session'] },
    error_on_requires_action: 'boolean',
    receipt_email: 'string',
    expand: 'strings',
  },
  capturePaymentIntent: { amount_to_capture: 'integer', metadata: 'metadata', statement_descriptor_suffix: 'string', expand: 'strings' },
  cancelPaymentIntent: { cancellation_reason: { enum: ['abandoned', 'duplicate', 'fraudulent', 'requested_by_customer'] }, expand: 'strings' },
  listPaymentIntents: { created: 'range', customer: 'string', ...LIST },
  searchPaymentIntents: { query: 'string', limit: 'integer', page: 'string', expand: 'strings' },
  createRefund: {
    payment_intent: 'string',
    charge: 'string',
    amount: 'integer',
    reason: { enum: ['duplicate', 'fraudulent', 'requested_by_customer'] },
    metadata: 'metadata',
    expand: 'strings',
  },
  listRefunds: { created: 'range', charge: 'string', payment_intent: 'string', ...LIST },
  listCharges: { created: 'range', customer: 'string', payment_intent: 'string', ...LIST },
  createCustomer: { email: 'string', name: 'string', description: 'string', metadata: 'metadata', payment_method: 'string', expand: 'strings' },
  attachPaymentMethod: { customer: 'string', expand: 'strings' },
  // Checkout Sessions in `mode=payment` with inline prices, and in `mode=setup`, as the connector creates them (and their obvious neighbours).
  createCheckoutSession: {
    mode: { enum: ['payment', 'setup', 'subscription'] },
    line_items: { listOf: { quantity: 'integer', price: 'string', price_data: { currency: 'string', unit_amount: 'integer', product_data: { name: 'string', description: 'string' } } } },
    allowed_payment_method_types: 'strings',
    setup_intent_data: { metadata: 'metadata', description: 'string' },
    payment_intent_data: { capture_method: { enum: ['automatic', 'automatic_async', 'manual'] }, metadata: 'metadata', description: 'string', statement_descriptor: 'string', statement_descriptor_suffix: 'string', setup_future_usage: { enum: ['off_session', 'on_session'] } },
    metadata: 'metadata',
    client_reference_id: 'string',
    success_url: 'string',
    cancel_url: 'string',
    customer: 'string',
    customer_email: 'string',
    expires_at: 'integer',
    locale: { enum: ['auto', 'en', 'en-GB', 'es', 'fr'] },
    expand: 'strings',
  },
  expireCheckoutSession: { expand: 'strings' },
  listCheckoutSessions: { created: 'range', payment_intent: 'string', status: { enum: ['open', 'complete', 'expired'] }, ...LIST },
  // Disputes: evidence as the pinned version's SDK types declare it (text fields, and file fields taking a file's id).
  updateDispute: {
    evidence: Object.fromEntries([...EVIDENCE_TEXT, ...EVIDENCE_FILES].map((f) => [f, 'string'])) as Record<string, 'string'>,
    metadata: 'metadata',
    submit: 'boolean',
    expand: 'strings',
  },
  closeDispute: { expand: 'strings' },
  listDisputes: { created: 'range', charge: 'string', payment_intent: 'string', ...LIST },
  // The connector lists by `created`; `status` and `arrival_date` are the list's other filters the double knows.
  listPayouts: { created: 'range', arrival_date: 'range', status: { enum: ['pending', 'in_transit', 'paid', 'failed', 'canceled'] }, ...LIST },
  none: {},
} as const satisfies Record<string, Record<string, Spec>>;

const REQUIRED: Partial<Record<keyof typeof ENDPOINTS, string[]>> = {
  createPaymentIntent: ['amount', 'currency'],
  searchPaymentIntents: ['query'],
  attachPaymentMethod: ['customer'],
  createCheckoutSession: ['mode', 'success_url'],
};

function checkMetadata(value: FormValue, param: string): Record<string, string> {
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(null, `Invalid object`, param);
  const entries = Object.entries(value);
  if (entries.length > 50) throw invalidParams(null, 'You can specify up to 50 keys on metadata.', param);
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw invalidParams(null, 'Invalid metadata value: must be a string', `${param}[${key}]`);
    if (key.length > 40) throw invalidParams(null, 'Metadata keys can have up to 40 characters.', `${param}[${key}]`);
    if (v.length > 500) throw invalidParams(null, 'Metadata values can have up to 500 characters.', `${param}[${key}]`);
  }
  return value as Record<string, string>;
}

function checkValue(spec: Spec, value: FormValue, param: string): unknown {
  if (spec === 'metadata') return checkMetadata(value, param);
  if (spec === 'strings') {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalidParams(null, 'Invalid array', param);
    return value;
  }
  if (spec === 'range' && typeof value === 'object') return checkObject(RANGE, value as Form, param);
  if (spec === 'integer' || spec === 'range') {
    if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw invalidParams('parameter_invalid_integer', `Invalid integer: ${String(value)}`, param);
    return Number(value);
  }
  if (spec === 'boolean') {
    if (value !== 'true' && value !== 'false') throw invalidParams(null, `Invalid boolean: ${String(value)}`, param);
    return value === 'true';
  }
  if (spec === 'string') {
    if (typeof value !== 'string') throw invalidParams(null, 'Invalid string', param);
    return value;
  }
  if ('listOf' in spec && typeof spec.listOf === 'object' && !Array.isArray(spec.listOf)) {
    if (!Array.isArray(value)) throw invalidParams(null, 'Invalid array', param);
    return value.map((item, i) => {
      if (typeof item !== 'object' || Array.isArray(item)) throw invalidParams(null, 'Invalid object', `${param}[${i}]`);
      return checkObject(spec.listOf as Record<string, Spec>, item, `${param}[${i}]`);
    });
  }
  if ('enum' in spec && Array.isArray(spec.enum)) {
    if (typeof value !== 'string' || !spec.enum.includes(value)) {
      throw invalidParams(null, `Invalid ${param}: must be one of ${spec.enum.join(', ')}`, param);
    }
    return value;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(null, 'Invalid object', param);
  return checkObject(spec as Record<string, Spec>, value, param);
}

function checkObject(specs: Record<string, Spec>, form: Form, prefix: string | null): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(form)) {
    const param = prefix ? `${prefix}[${key}]` : key;
    const spec = specs[key];
    if (spec === undefined) throw unknownParameter(param);
    out[key] = checkValue(spec, value, param);
  }
  return out;
}

/** The endpoint's parameters, read and typed, or the refusal Stripe answers. */
export function checkParams(endpoint: keyof typeof ENDPOINTS, form: Form): Params {
  const params = checkObject(ENDPOINTS[endpoint], form, null);
  for (const name of REQUIRED[endpoint] ?? []) if (params[name] === undefined) throw missingParameter(name);
  return params;
}
