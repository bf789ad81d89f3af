import type { Problem, ProblemType } from './types.js';

type FieldError = NonNullable<Problem['errors']>[number];

const isProblem = (body: unknown): body is Problem =>
  typeof body === 'object' && body !== null && typeof (body as Problem).type === 'string' && typeof (body as Problem).status === 'number';

/**
 * An answer of the API that is not a success: its problem body (RFC 9457) as fields.
 * Match on `type` (a URN that never changes), not on `title` or `detail` (words);
 * `doc_url` is the page that says what caused it and what to do, `request_id` the id to
 * quote when asking about it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status. */
  readonly status: number;
  /** `urn:problem:…`; `about:blank` when the answer was no problem body (a proxy's error page). */
  readonly type: ProblemType | 'about:blank';
  readonly title: string;
  readonly detail: string;
  /** The fields at fault, each with its path (`products.0.amount`, `query.page`). */
  readonly errors: FieldError[];
  /** The answer's `X-Request-Id`. */
  readonly request_id: string | undefined;
  /** Where the docs explain this problem type. */
  readonly doc_url: string | undefined;
  /** Seconds the answer asked to wait (`Retry-After`), when it said. */
  readonly retry_after: number | undefined;
  /** The problem body as received, when there was one. */
  readonly problem: Problem | undefined;
  /** The answer itself (its body already read). */
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const problem = isProblem(body) ? body : undefined;
    const title = problem?.title ?? (response.statusText || `HTTP ${response.status}`);
    const detail = problem?.detail ?? (typeof body === 'string' ? body.slice(0, 200) : '');
    const fields = problem?.errors ?? [];
    const at = fields.length ? ` (${fields.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
    super(`${response.status} ${title}${detail ? `: ${detail}` : ''}${at}`);
    this.status = response.status;
    this.type = problem?.type ?? 'about:blank';
    this.title = title;
    this.detail = detail;
    this.errors = fields;
    this.request_id = problem?.request_id ?? response.headers.get('x-request-id') ?? undefined;
    this.doc_url = problem?.doc_url;
    const wait = Number(response.headers.get('retry-after') ?? NaN);
    this.retry_after = Number.isFinite(wait) ? wait : undefined;
    this.problem = problem;
    this.response = response;
  }
}
