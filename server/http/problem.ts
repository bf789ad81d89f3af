import type { ErrorRequestHandler, Response } from 'express';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../store/errors';

// One error type with a closed set of codes, rendered by one handler as RFC 9457
// problem+json. Unknown errors become a generic 500 with the request id, never internals.

const PROBLEMS = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    cause: 'A field of the body, a query parameter or a header breaks a rule of the API (its type, length, pattern, range or decimals), is not a field the operation knows, or names an object that does not exist. `errors` lists each field at fault with its path (`products.0.amount`, `query.page`, `header.Idempotency-Key`).',
    action: 'Correct the fields `errors` names, as the reference describes them, and send the request again. Nothing was done.',
  },
  unauthorized: {
    status: 401,
    title: 'Authentication required',
    cause: 'The `Authorization` header is missing, is not `AppKeys <public_key>:<secret_key>`, or its key pair is not one of an environment (revoked, mistyped, or of another service).',
    action: 'Send the key pair of your environment as `Authorization: AppKeys <public_key>:<secret_key>`; ask the dashboard for a new pair if this one was revoked.',
  },
  payment_declined: {
    status: 402,
    title: 'Payment declined',
    cause: 'The gateway declined the card, the charge or the source (insufficient funds, a lost card, a refused authentication). A declined charge is recorded, and a repeat with the same `Idempotency-Key` answers the same.',
    action: 'Tell the customer and ask for another payment method; retrying the same card rarely succeeds. `detail` names the gateway\'s reason.',
  },
  raw_cards_off: {
    status: 403,
    title: 'Raw card numbers are off for this environment',
    cause:
      'A `POST /v1/authorization/` carried `card`, and the environment\'s `raw_card_numbers` setting is off: its API takes no card numbers, so no card data passes through your servers.',
    action:
      'Send the request without `card`: the answer\'s `url` is a hosted page (also in the widget) where the customer gives the card, and the authorization becomes `active` there. An operator turns the setting on with `npm run keys -- settings --environment <id> --raw-cards on`.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    cause: 'No object with this id in the environment of your key pair (an object of another environment is not found either), an id that is not a UUID, or a path that is no route of the API.',
    action: 'Check the id and that you use the key pair of the environment that created the object; check the path against the reference (every path ends with a slash).',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    cause: 'The path exists, but not with this method.',
    action: 'Use one of the methods the `Allow` header lists.',
  },
  conflict: {
    status: 409,
    title: 'Conflict with the current state',
    cause:
      'The object\'s state does not allow the action (capturing more than is held, refunding a voided sale, removing twice, refunding a card charge that paid part of a transaction\'s `source`), or an external id (`client_id`, `wallet_id`, `iban_id`, `transfer_id`) is already used. `detail` names the rule.',
    action:
      'Read the object again to see its state, and act on what it allows now (a card charge of a `source` is refunded through the transaction\'s sale, which `detail` names); choose another external id for a new object.',
  },
  idempotency_in_flight: {
    status: 409,
    title: 'A request with this Idempotency-Key is in progress',
    cause: 'A request with the same `Idempotency-Key` is still running (a slow gateway call, or a retry sent before the first answered).',
    action: 'Wait `Retry-After` seconds and repeat the request with the same key and body: you get the first request\'s answer once it has finished.',
  },
  payload_too_large: {
    status: 413,
    title: 'Request body too large',
    cause: 'The body is over the limit of the route (100 kB by default; 10 MiB for a client\'s document).',
    action: 'Send a smaller body: fewer lines in one request, or a smaller file.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    cause: 'The body is not `application/json` in UTF-8, or its `Content-Encoding` is not one of `gzip`, `deflate` and `br`.',
    action: 'Send `Content-Type: application/json` with a UTF-8 JSON body.',
  },
  idempotency_mismatch: {
    status: 422,
    title: 'Idempotency-Key reused with a different request',
    cause: 'This `Idempotency-Key` was used within the last 24 hours with another path or body.',
    action: 'Use a new key for each new request, and the same key only to repeat the same request.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    cause: 'More requests per second than your environment\'s rate limit (the `RateLimit-Policy` header states it). Nothing was done.',
    action: 'Wait `Retry-After` seconds before the next request, and spread your requests (the `RateLimit` header says how many are left).',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    cause: 'A fault of the service, never of your input.',
    action: 'Repeat the request with the same `Idempotency-Key` later; if it persists, tell us its `request_id`.',
  },
  gateway_error: {
    status: 502,
    title: 'The payment gateway failed',
    cause:
      'The payment gateway failed or did not answer in time. Nothing was moved, unless `detail` starts with "Refunded": a refund of a source-paid transaction\'s sale whose other parts were made (they stand).',
    action:
      'Repeat the request (with the same `Idempotency-Key`): a retry is safe. After a partial refund, read the sale and refund what is still to refund as a new request (a new key).',
  },
  service_unavailable: {
    status: 503,
    title: 'Service temporarily unavailable',
    cause: 'The service cannot reach its database (a restart, a failover). Nothing was written.',
    action: 'Repeat the request, with the same `Idempotency-Key`, after `Retry-After` seconds.',
  },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** `payment_declined` → `payment-declined`: the tail of its URN and its anchor on the errors page. */
const problemName = (code: ProblemCode): string => code.replace(/_/g, '-');

/** The `type` of a problem: a URN made from its code (`payment_declined` → `urn:problem:payment-declined`). */
function problemType(code: ProblemCode): string {
  return `urn:problem:${problemName(code)}`;
}

/** Where the errors page is served (server/docs/), one section per problem type. */
export const ERRORS_PAGE = '/docs/errors';

/** The page that explains a problem type, on the service's origin. */
export const problemDocUrl = (origin: string, code: ProblemCode): string => `${origin}${ERRORS_PAGE}#${problemName(code)}`;

/** Every problem the service can answer, for the OpenAPI document and the docs: the one list. */
export const PROBLEM_CATALOGUE = (Object.entries(PROBLEMS) as [ProblemCode, (typeof PROBLEMS)[ProblemCode]][]).map(
  ([code, { status, title, cause, action }]) => ({ code, name: problemName(code), type: problemType(code), status, title, cause, action }),
);

export interface FieldError {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  /** Seconds, sent as Retry-After: when trying again may succeed. */
  retryAfter?: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly errors?: FieldError[],
  ) {
    super(detail ?? PROBLEMS[code].title);
    this.status = PROBLEMS[code].status;
  }
}

/**
 * An error answer whose database work stands: a declined charge is recorded all the same.
 * It commits, and a repeat with the same Idempotency-Key replays it.
 */
export class RecordedError extends ApiError {}

/** 404 for an object of this environment that does not exist: "No sale with this id". */
export function notFound(noun: string): ApiError {
  return new ApiError('not_found', `No ${noun} with this id`);
}

/** The row read by id, or the 404 that names what was looked for. */
export function found<T>(row: T | null | undefined, noun: string): T {
  if (row === null || row === undefined) throw notFound(noun);
  return row;
}

/** 409: a request of this Idempotency-Key (or its gateway call) is still running. */
export function inFlight(retryAfterMs: number, detail = 'Retry once the first request has finished'): ApiError {
  const err = new ApiError('idempotency_in_flight', detail);
  err.retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return err;
}

/** A 400 naming one field, for rules checked after parsing (references, totals). */
export function fieldError(path: string, message: string): ApiError {
  return new ApiError('invalid_request', `${path}: ${message}`, [{ path, message }]);
}

export function zodErrors(error: z.ZodError, prefix?: string): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean) as string[];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'is not a known field' }));
    }
    return [{ path: base.join('.') || '(body)', message: issue.message }];
  });
}

export function invalid(error: z.ZodError, prefix?: string): ApiError {
  const errors = zodErrors(error, prefix);
  const detail = errors
    .slice(0, 3)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  return new ApiError('invalid_request', detail, errors);
}

/**
 * The body as stored for an Idempotency-Key's replay: without what belongs to the answer
 * that sends it (`request_id`, and `doc_url`, which names the origin asked).
 */
export function problemBody(err: ApiError): string {
  return JSON.stringify(problemFields(err));
}

function problemFields(err: ApiError) {
  return {
    type: problemType(err.code),
    title: PROBLEMS[err.code].title,
    status: err.status,
    detail: err.detail ?? PROBLEMS[err.code].title,
    ...(err.errors ? { errors: err.errors } : {}),
  };
}

/**
 * The origin doc_url names: the API router sets it first thing (PUBLIC_URL, else the
 * request's origin), so every problem it answers links to this service's errors page.
 */
export function setDocsOrigin(res: Response, origin: string): void {
  res.locals.docsOrigin = origin;
}

/** A problem body with its answer's own fields: the request id to quote and the page that explains it. */
function answered(res: Response, body: { type: string }): string {
  const code = (PROBLEM_CATALOGUE.find((p) => p.type === body.type) ?? PROBLEM_CATALOGUE.find((p) => p.code === 'internal')!).code;
  const origin = typeof res.locals.docsOrigin === 'string' ? res.locals.docsOrigin : '';
  const id = requestIdOf(res);
  return JSON.stringify({ ...body, ...(id ? { request_id: id } : {}), doc_url: problemDocUrl(origin, code) });
}

/** Every problem names its request (the answer's X-Request-Id), so a merchant can quote it, and its page. */
export function sendProblem(res: Response, err: ApiError): void {
  if (err.code === 'unauthorized') res.set('WWW-Authenticate', 'AppKeys realm="api"');
  if (err.retryAfter !== undefined) res.set('Retry-After', String(err.retryAfter));
  res.status(err.status).type('application/problem+json').send(answered(res, problemFields(err)));
}

function requestIdOf(res: Response): string | undefined {
  const id = (res.req as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** A stored problem (an Idempotency-Key's replay) with the request id and doc_url of the answer that replays it. */
export function replayedProblem(res: Response, body: string): string {
  return answered(res, JSON.parse(body) as { type: string });
}

/** body-parser and friends signal their failures with `type`/`status` on the error. */
function fromFramework(err: unknown): ApiError | null {
  if (typeof err !== 'object' || err === null) return null;
  // The router could not percent-decode a path parameter: such an id names no object.
  if (err instanceof URIError) return new ApiError('not_found', 'No such object');
  const e = err as { type?: string; status?: number; message?: string; limit?: number };
  switch (e.type) {
    case 'entity.too.large':
      return new ApiError('payload_too_large', `The JSON body exceeds the size limit of ${e.limit} bytes`);
    case 'entity.parse.failed':
      return new ApiError('invalid_request', 'The body is not valid JSON', [
        { path: '(body)', message: 'is not valid JSON' },
      ]);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', e.message);
  }
  // Every other body the parser refuses (nested too deep, a bad request line): the body is the field.
  if (e.status && e.status >= 400 && e.status < 500) return new ApiError('invalid_request', e.message, [{ path: '(body)', message: e.message ?? 'cannot be read' }]);
  return null;
}

/** Seconds a client should wait before repeating a request the database could not serve. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

export const problemHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const known = err instanceof ApiError ? err : fromFramework(err);
  if (known) return sendProblem(res, known);
  if (isDatabaseUnavailable(err)) {
    // Every write is one database transaction, so nothing half-written stands: the
    // client repeats the request (with its Idempotency-Key) once the database is back.
    req.log?.warn({ err }, 'database unavailable');
    res.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
    return sendProblem(res, new ApiError('service_unavailable', 'The service cannot reach its database; try again shortly'));
  }
  req.log?.error({ err }, 'unhandled error');
  sendProblem(res, new ApiError('internal', 'Something went wrong on our side'));
};
