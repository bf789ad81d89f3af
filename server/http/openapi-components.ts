import { ERRORS_PAGE, PROBLEM_CATALOGUE, problemDocUrl } from './problem';
import { API_VERSIONS, VERSION_HEADER } from './versions';

// The OpenAPI document's shared components (openapi.ts): the problem answers every
// operation refers to, the headers, the header parameters and the security scheme.

export type Json = Record<string, unknown>;

/** Problem answers by status, as shared components: each names the problem types it carries. */
export const PROBLEM_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The body, the query or a header is invalid: `errors` names each field' },
  401: { name: 'Unauthorized', description: 'The `Authorization` header is missing or its keys are not valid' },
  402: { name: 'PaymentDeclined', description: 'The gateway declined the payment; a declined charge is recorded' },
  403: { name: 'Forbidden', description: 'The environment\'s settings do not allow this request (raw card numbers are off): `detail` says what to do instead' },
  404: { name: 'NotFound', description: 'No object with this id in your environment' },
  409: { name: 'Conflict', description: 'Not allowed in the current state, or a request with this `Idempotency-Key` is still running' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than the limit of the route' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json` (UTF-8)' },
  422: { name: 'IdempotencyMismatch', description: 'The `Idempotency-Key` was used before with a different request' },
  429: { name: 'TooManyRequests', description: 'More requests per second than the environment\'s rate limit; retry after `Retry-After` seconds' },
  502: { name: 'GatewayError', description: 'The gateway failed or did not answer in time; nothing was moved and a retry is safe' },
  503: { name: 'ServiceUnavailable', description: 'The service cannot reach its database (a restart, a failover): nothing was written; repeat the request after `Retry-After` seconds' },
};

export const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

export const HEADERS = {
  'X-Request-Id': header('Identifies this request in the service logs; quote it when you ask about a request', { type: 'string', format: 'uuid' }),
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`', {
    type: 'string',
    enum: ['true'],
  }),
  'WWW-Authenticate': header('The scheme to authenticate with: `AppKeys realm="api"`'),
  'Retry-After': header('Seconds to wait before repeating the request', { type: 'integer', minimum: 1 }),
  [VERSION_HEADER]: header('The version of the API that made this answer: the one the request named, else the current one', {
    type: 'string',
    enum: [...API_VERSIONS],
  }),
  RateLimit: header(
    'Where this environment stands (draft-ietf-httpapi-ratelimit-headers): `"api";r=<requests left>;t=<seconds until the quota is full again>`',
  ),
  'RateLimit-Policy': header('The quota (draft-ietf-httpapi-ratelimit-headers): `"api";q=<requests>;w=<window in seconds>`'),
};

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Sent with every answer past authentication. */
export const RATE_LIMIT_HEADERS = { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') };

/** `origin`: the service's, for the examples' `doc_url`. */
export function problemComponents(origin: string) {
  const problem = {
    type: 'object',
    description: 'Problem details (RFC 9457), the body of every error answer',
    required: ['type', 'title', 'status', 'detail', 'request_id', 'doc_url'],
    properties: {
      type: {
        type: 'string',
        enum: PROBLEM_CATALOGUE.map((p) => p.type),
        description: 'The kind of problem, a URN; the same type always has the same status and title',
      },
      title: { type: 'string', description: 'Short summary of the problem type, the same for every answer of the type' },
      status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the answer' },
      detail: { type: 'string', description: 'What went wrong with this request, in words' },
      errors: {
        type: 'array',
        description: 'The fields at fault, for invalid requests',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: {
            path: { type: 'string', description: 'Dotted path of the field in the body (`products.0.amount`), `query.<name>` for the query, `(body)` for the whole body' },
            message: { type: 'string', description: 'What is wrong with it' },
          },
        },
      },
      request_id: { type: 'string', description: 'The id of this request, as in the answer\'s `X-Request-Id` header: quote it when asking about a request' },
      doc_url: {
        type: 'string',
        format: 'uri',
        description: `The section of the service's errors page (\`${ERRORS_PAGE}#<name>\`, \`<name>\` being the type's last part) that says what causes this type of problem and what to do`,
      },
    },
  };
  const responses: Record<string, unknown> = {};
  for (const [status, { name, description }] of Object.entries(PROBLEM_RESPONSES)) {
    const first = PROBLEM_CATALOGUE.find((p) => p.status === Number(status))!;
    responses[name] = {
      description,
      headers: {
        'X-Request-Id': ref('headers', 'X-Request-Id'),
        [VERSION_HEADER]: ref('headers', VERSION_HEADER),
        ...(status === '401' ? { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') } : {}),
        ...(status === '402' ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
        ...(status === '401' || status === '503' ? {} : RATE_LIMIT_HEADERS),
        ...(status === '429' || status === '503' ? { 'Retry-After': ref('headers', 'Retry-After') } : {}),
      },
      content: {
        'application/problem+json': {
          schema: ref('schemas', 'Problem'),
          example: {
            type: first.type,
            title: first.title,
            status: first.status,
            detail: description,
            request_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e',
            doc_url: problemDocUrl(origin, first.code),
          },
        },
      },
    };
  }
  return { problem, responses };
}

export const SIGNATURE_HEADERS = {
  'webhook-id': 'The event\'s `id`: the same on every retry of it, to drop duplicates',
  'webhook-timestamp': 'Unix seconds of this attempt: refuse one more than 5 minutes from your clock',
  'webhook-signature':
    'Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>`, one per signing secret (two while a rolled secret overlaps): accept if one matches (Standard Webhooks)',
};

/** The shared header parameters: the version, the webhooks' signature headers (with webhooks), the Idempotency-Key. */
export function headerParameters(withWebhooks: boolean) {
  return {
    [VERSION_HEADER]: {
      name: VERSION_HEADER,
      in: 'header',
      required: false,
      description:
        'The version of the API the request is written for, named by its release date; absent means the current one. ' +
        'An unknown one is 400 naming the known ones. What each version changed: docs/changelog.md',
      schema: { type: 'string', enum: [...API_VERSIONS] },
    },
    ...Object.fromEntries(
      Object.entries(withWebhooks ? SIGNATURE_HEADERS : {}).map(([name, description]) => [
        name,
        { name, in: 'header', required: true, description, schema: { type: 'string' } },
      ]),
    ),
    'Idempotency-Key': {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: a repeat with the same key and body within 24 h replays the first answer ' +
        '(with `Idempotent-Replayed: true`), a different body is 422, a repeat while the first runs is 409',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    },
  };
}

export const SECURITY_SCHEMES = {
  AppKeys: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The value is `AppKeys <public_key>:<secret_key>`',
  },
};
