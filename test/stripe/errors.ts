// Stripe's error answers: `{error: {type, code?, decline_code?, message, param?, …}}` with
// the status Stripe uses for each type (400 invalid_request_error and idempotency_error,
// 401 a bad key, 402 card_error, 404 resource_missing, 500 api_error). Handlers throw a
// `StripeRefusal`; the server answers it, and saves it for the request's Idempotency-Key
// when the endpoint had started executing (as Stripe does: a refusal of the parameters
// themselves is not saved).

export interface StripeErrorBody {
  type: 'invalid_request_error' | 'idempotency_error' | 'card_error' | 'api_error';
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  request_log_url?: string;
  charge?: string;
  payment_intent?: unknown;
  payment_method?: unknown;
}

export class StripeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeErrorBody,
    /** Refused while reading the parameters: nothing started, so nothing is saved for the key. */
    readonly beforeExecuting = false,
  ) {
    super(error.message);
  }

  get body() {
    return { error: this.error };
  }
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}`;

/** A refusal of the endpoint, with its error code when Stripe gives one (and links it to its page). */
export const invalid = (code: string | null, message: string, param?: string, status = 400) =>
  new StripeRefusal(status, { type: 'invalid_request_error', message, ...(code ? { code, doc_url: docUrl(code) } : {}), ...(param ? { param } : {}) });

/** A refusal of the parameters themselves, before the endpoint runs. */
export const invalidParams = (code: string | null, message: string, param: string) =>
  new StripeRefusal(400, { type: 'invalid_request_error', message, param, ...(code ? { code, doc_url: docUrl(code) } : {}) }, true);

export const unknownParameter = (param: string) => invalidParams('parameter_unknown', `Received unknown parameter: ${param}`, param);

export const missingParameter = (param: string) => invalidParams('parameter_missing', `Missing required param: ${param}.`, param);

export const noSuch = (what: string, id: string, param?: string) => invalid('resource_missing', `No such ${what}: '${id}'`, param, param ? 400 : 404);

export const unexpectedState = (message: string) => invalid('payment_intent_unexpected_state', message);

export const idempotencyMismatch = (key: string) =>
  new StripeRefusal(
    400,
    {
      type: 'idempotency_error',
      message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    },
    true,
  );

/** 401: Stripe's answer names the key, masked. */
export function badKey(key: string | null): StripeRefusal {
  const message = key
    ? `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`
    : 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').';
  return new StripeRefusal(401, { type: 'invalid_request_error', message }, true);
}

export const serverError = () =>
  new StripeRefusal(500, { type: 'api_error', message: 'An unknown error occurred while processing your request. Please try again later.' });

/**
 * Stripe's amount rules of its currency list (docs.stripe.com/currencies, "special cases"):
 * ISK is two-decimal in whole krónur (a fraction is `invalid_charge_amount_no_decimal_compatible`),
 * and the three-decimal currencies take only amounts whose last digit is 0.
 */
export function checkAmountUnits(amount: number, currency: string, param: string): void {
  if (currency === 'isk' && amount % 100 !== 0) {
    throw invalid('invalid_charge_amount_no_decimal_compatible', 'Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100.', param);
  }
  if (['bhd', 'jod', 'kwd', 'omr', 'tnd'].includes(currency) && amount % 10 !== 0) {
    throw invalid(null, `Invalid amount for ${currency.toUpperCase()}: the last digit of a three-decimal currency's amount must be 0.`, param);
  }
}
