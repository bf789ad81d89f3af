import type { ErrorRequestHandler, Response } from 'express';
import { z } from 'zod';

// One error type with a closed set of codes, rendered by one handler as RFC 9457
// problem+json. Unknown errors become a generic 500 with the request id, never internals.

const PROBLEMS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  unauthorized: { status: 401, title: 'Authentication required' },
  payment_declined: { status: 402, title: 'Payment declined' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  idempotency_in_flight: { status: 409, title: 'A request with this Idempotency-Key is in progress' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_mismatch: { status: 422, title: 'Idempotency-Key reused with a different request' },
  internal: { status: 500, title: 'Internal error' },
  gateway_error: { status: 502, title: 'The payment gateway failed' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** The `type` of a problem: a URN made from its code (`payment_declined` → `urn:problem:payment-declined`). */
export function problemType(code: ProblemCode): string {
  return `urn:problem:${code.replace(/_/g, '-')}`;
}

/** Every problem the service can answer, for the OpenAPI document and the docs: the one list. */
export const PROBLEM_CATALOGUE = (Object.entries(PROBLEMS) as [ProblemCode, { status: number; title: string }][]).map(
  ([code, { status, title }]) => ({ code, type: problemType(code), status, title }),
);

export interface FieldError {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
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

export function problemBody(err: ApiError, requestId?: string): string {
  return JSON.stringify({
    type: problemType(err.code),
    title: PROBLEMS[err.code].title,
    status: err.status,
    detail: err.detail ?? PROBLEMS[err.code].title,
    ...(err.errors ? { errors: err.errors } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  });
}

export function sendProblem(res: Response, err: ApiError, requestId?: string): void {
  if (err.code === 'unauthorized') res.set('WWW-Authenticate', 'AppKeys realm="api"');
  res.status(err.status).type('application/problem+json').send(problemBody(err, requestId));
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
  if (e.status && e.status >= 400 && e.status < 500) return new ApiError('invalid_request', e.message);
  return null;
}

export const problemHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const known = err instanceof ApiError ? err : fromFramework(err);
  if (known) return sendProblem(res, known);
  req.log?.error({ err }, 'unhandled error');
  sendProblem(res, new ApiError('internal', 'Something went wrong on our side'), String(req.id));
};
