import { z } from 'zod';
import { PROBLEM_CATALOGUE } from './problem';
import type { RouteDef } from './route';

// The OpenAPI 3.1 document is generated from the route declarations and the zod schemas
// that validate requests: there is no second copy of the contract to drift.

type Json = Record<string, unknown>;

/** What each group of operations is about, for the document's top-level `tags`. */
export const TAGS: Record<string, string> = {
  Transaction: 'Payment requests: the products, the totals and the hosted payment screen (`payment_url`) where the customer pays.',
  Sale: 'What a payment or a charge moved: held, captured, refunded and voided amounts, and the actions on them.',
  Authorization: 'Stored payment methods (cards), charged later without the customer.',
  Subscriptions: 'Recurring charges of a plan to a stored payment method, one per period.',
  Event: 'Notifications sent to `notify_url`, with their delivery attempts.',
  Product: 'Catalogue products, referenced by transaction lines through `product_id`.',
  Plan: 'Catalogue plans: the amount and period of a subscription.',
  Tax: 'Catalogue taxes: a percentage of `items_price`, referenced by a transaction.',
  'Shipping option': 'Catalogue shipping options: a price, referenced by a transaction.',
  Coupon: 'Catalogue coupons: a fixed amount or a percentage off, referenced by a transaction.',
  Gateway: 'The payment gateways of the service (read-only).',
  Currency: 'The currencies the service knows, with their exponents (read-only).',
  Clients: 'Your customers as legal persons, with their IBANs and identity documents.',
  Wallets: 'Balances held for clients, with their double-entry ledger.',
  Transfers: 'Money moved from a wallet to another wallet or to an IBAN (a payout).',
};

/** Problem answers by status, as shared components: each names the problem types it carries. */
const PROBLEM_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The body, the query or a header is invalid: `errors` names each field' },
  401: { name: 'Unauthorized', description: 'The `Authorization` header is missing or its keys are not valid' },
  402: { name: 'PaymentDeclined', description: 'The gateway declined the payment; a declined charge is recorded' },
  404: { name: 'NotFound', description: 'No object with this id in your environment' },
  409: { name: 'Conflict', description: 'Not allowed in the current state, or a request with this `Idempotency-Key` is still running' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than the limit of the route' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json` (UTF-8)' },
  422: { name: 'IdempotencyMismatch', description: 'The `Idempotency-Key` was used before with a different request' },
  502: { name: 'GatewayError', description: 'The gateway failed or did not answer in time; nothing was moved and a retry is safe' },
};

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  'X-Request-Id': header('Identifies this request in the service logs; quote it when you ask about a request', { type: 'string', format: 'uuid' }),
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`', {
    type: 'string',
    enum: ['true'],
  }),
  'WWW-Authenticate': header('The scheme to authenticate with: `AppKeys realm="api"`'),
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

function problemComponents() {
  const problem = {
    type: 'object',
    description: 'Problem details (RFC 9457), the body of every error answer',
    required: ['type', 'title', 'status', 'detail'],
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
      request_id: { type: 'string', description: 'The request id of an internal error, to quote when asking about it' },
    },
  };
  const responses: Record<string, unknown> = {};
  for (const [status, { name, description }] of Object.entries(PROBLEM_RESPONSES)) {
    const first = PROBLEM_CATALOGUE.find((p) => p.status === Number(status))!;
    responses[name] = {
      description,
      headers: {
        'X-Request-Id': ref('headers', 'X-Request-Id'),
        ...(status === '401' ? { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') } : {}),
        ...(status === '402' ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
      },
      content: {
        'application/problem+json': {
          schema: ref('schemas', 'Problem'),
          example: { type: first.type, title: first.title, status: first.status, detail: description },
        },
      },
    };
  }
  return { problem, responses };
}

/** `/client/{clientId}/iban/{id}/` → `id` names an IBAN; `clientId` names a client. */
function pathParameterDescription(path: string, name: string): string {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf(`{${name}}`);
  const resource = segments[at - 1] ?? 'object';
  return `\`id\` (UUID) of the ${resource}`;
}

/**
 * Request schemas state a default in words instead of the `default` keyword: code
 * generators (openapi-typescript with its defaults) read `default` as "always present" and
 * would make a client send every defaulted field. An optional field stays optional.
 */
function defaultsInWords(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(defaultsInWords);
  if (!value || typeof value !== 'object') return;
  const schema = value as Json;
  if ('default' in schema) {
    const words = `Default: ${JSON.stringify(schema.default)}.`;
    const description = typeof schema.description === 'string' ? schema.description : '';
    if (!/default/i.test(description)) schema.description = description ? `${description}. ${words}` : words;
    delete schema.default;
  }
  Object.values(schema).forEach(defaultsInWords);
}

/** What the success answer is: the object's description ("Created: …" for a 201), or a page. */
function answerDescription(r: RouteDef): string {
  const about = (z.globalRegistry.get(r.response!) as { description?: string } | undefined)?.description;
  if (!about) return r.method === 'get' ? 'One page of the list, newest first' : 'The result';
  return r.status === 201 ? `Created: ${about.charAt(0).toLowerCase()}${about.slice(1)}` : about;
}

export interface OpenApiOptions {
  version: string;
  /** The absolute origin the API is served from (`PUBLIC_URL`, else the request's). */
  origin?: string;
}

export function buildOpenApi(routes: RouteDef[], options: OpenApiOptions) {
  const schemas: Record<string, unknown> = {};
  // Schemas with an `id` in their metadata become shared components. A request schema
  // differs from its answer where defaults apply (a default makes a field optional in the
  // request and always present in the answer), so request components are suffixed `Input`.
  const toSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const suffix = io === 'input' ? 'Input' : '';
    const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
    const json = JSON.parse(
      JSON.stringify(generated).replace(/"#\/\$defs\/([^"]+)"/g, (_, name: string) => `"#/components/schemas/${name}${suffix}"`),
    ) as Json & { $defs?: Record<string, unknown> };
    if (io === 'input') defaultsInWords(json);
    const { $defs, $schema: _, ...rest } = json;
    for (const [name, def] of Object.entries($defs ?? {})) schemas[`${name}${suffix}`] = def;
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id) {
      const reference = `#/components/schemas/${id}${suffix}`;
      // zod lifts a root schema with an id into $defs and leaves only a $ref to it at the
      // root: storing that root would replace the schema with a reference to itself.
      if (rest.$ref !== reference) schemas[`${id}${suffix}`] = rest;
      return { $ref: reference };
    }
    return rest;
  };

  const { problem, responses: problemResponses } = problemComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params: unknown[] = [...r.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      description: pathParameterDescription(r.path, name!),
      schema: { type: 'string', format: 'uuid' },
    }));
    if (r.query instanceof z.ZodObject) {
      for (const [name, s] of Object.entries(r.query.shape as Record<string, z.ZodType>)) {
        // Described by the parsed value, as the service enforces it: `page` is an integer from 1.
        const { description, ...schema } = toSchema(s, 'output') as Json;
        params.push({ name, in: 'query', required: false, description, schema });
      }
    }
    if (r.method === 'post') params.push(ref('parameters', 'Idempotency-Key'));
    const json = (schema: unknown, example: unknown) => ({
      'application/json': { schema, ...(example === undefined ? {} : { example }) },
    });
    const binary = { schema: { type: 'string', format: 'binary' } };
    const successHeaders = {
      'X-Request-Id': ref('headers', 'X-Request-Id'),
      ...(r.method === 'post' ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
    };
    const responses: Record<string, unknown> = {
      [r.status]: r.file
        ? {
            description: 'The file, as an attachment',
            headers: {
              ...successHeaders,
              'Content-Disposition': header('`attachment` with the file name', { type: 'string' }),
            },
            content: Object.fromEntries(r.file.map((type) => [type, binary])),
          }
        : r.response
          ? { description: answerDescription(r), headers: successHeaders, content: json(toSchema(r.response, 'output'), r.example.response) }
          : { description: 'Done, no content', headers: successHeaders },
    };
    const statuses = new Set<number>([401, ...(r.problems ?? [])]);
    if (r.body || r.query || r.method === 'post') statuses.add(400);
    if (r.path.includes('{')) statuses.add(404);
    if (r.method === 'post') [409, 422].forEach((s) => statuses.add(s));
    if (r.body) [413, 415].forEach((s) => statuses.add(s));
    for (const status of [...statuses].sort()) responses[status] = ref('responses', PROBLEM_RESPONSES[status]!.name);
    (paths[r.path] ??= {})[r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      description: r.description,
      tags: [r.tag],
      parameters: params,
      ...(r.body
        ? {
            requestBody: {
              // A request without a body reads as {}: required only when {} is refused.
              required: !r.body.safeParse({}).success,
              content: json(toSchema(r.body, 'input'), r.example.request),
            },
          }
        : {}),
      responses,
    };
  }
  const used = new Set(routes.map((r) => r.tag));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Service API',
      version: options.version,
      description:
        'Transactions and their hosted payment screen, sales, stored payment methods, subscriptions, the catalogue, ' +
        'clients, wallets and transfers. Amounts are decimal numbers in major units of their currency. ' +
        'Errors are RFC 9457 problem details; lists are paginated with `page` and `page_size`.',
      contact: { name: 'Payment Service API support' },
      // The package is private: no public licence. A LicenseRef- is how SPDX names one of
      // your own; both linters accept it, and no URL has to be made up.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `${options.origin ?? 'http://localhost:3000'}/v1`, description: 'This service' }],
    security: [{ AppKeys: [] }],
    tags: Object.entries(TAGS)
      .filter(([name]) => used.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...schemas, Problem: problem },
      responses: problemResponses,
      headers: HEADERS,
      parameters: {
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: a repeat with the same key and body within 24 h replays the first answer ' +
            '(with `Idempotent-Replayed: true`), a different body is 422, a repeat while the first runs is 409',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
      securitySchemes: {
        AppKeys: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The value is `AppKeys <public_key>:<secret_key>`',
        },
      },
    },
  };
}
