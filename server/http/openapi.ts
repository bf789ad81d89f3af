import { z } from 'zod';
import {
  header,
  HEADERS,
  headerParameters,
  type Json,
  PROBLEM_RESPONSES,
  problemComponents,
  RATE_LIMIT_HEADERS,
  ref,
  SECURITY_SCHEMES,
  SIGNATURE_HEADERS,
} from './openapi-components';
import { livemodeStamp } from './livemode';
import { VERSION_HEADER } from './versions';
import type { RouteDef } from './route';

// The OpenAPI 3.1 document is generated from the route declarations and the zod schemas
// that validate requests: there is no second copy of the contract to drift.

/** What each group of operations is about, for the document's top-level `tags`. */
const TAGS: Record<string, string> = {
  Transaction: 'Payment requests: the products, the totals and the hosted payment screen (`payment_url`) where the customer pays.',
  Sale: 'What a payment or a charge moved: held, captured, refunded and voided amounts, and the actions on them.',
  Authorization: 'Stored payment methods (cards), charged later without the customer.',
  Subscriptions: 'Recurring charges of a plan to a stored payment method, one per period.',
  Event: 'Every change of every object, with its deliveries to `notify_url` and to webhook endpoints, and their attempts.',
  'Webhook endpoint': 'URLs that receive the events of your environment, each signed with its own secret.',
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
  Environment:
    "Settings of your environment: its brand (the name, support address, colours and logo customers see on the payment pages and in emails) and the secret that signs returns to `return_url` and `cancel_url`.",
  Balance: "The merchant's own money: the balance per currency and its movements, with their fees.",
  Disputes: "A customer's bank disputing a captured sale: its evidence, your answer and the bank's decision.",
  Processor: 'Your own processor accounts (Stripe) connected to the environment: write-only credentials, the gateways each brings, the URL for its webhooks.',
};

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

/** An event type the service POSTs to webhook endpoints and notify_urls, with its body's schema. */
export interface WebhookDoc {
  type: string;
  /** `TransactionPaid`: names its operation. */
  name: string;
  schema: z.ZodType;
}

export interface OpenApiOptions {
  version: string;
  /** The absolute origin the API is served from (`PUBLIC_URL`, else the request's). */
  origin?: string;
  /** The document's `webhooks`: every event type and its body. */
  webhooks?: WebhookDoc[];
}

type ToSchema = (schema: z.ZodType, io: 'input' | 'output') => Json;

/**
 * The document's `components.schemas`, filled as operations convert their zod schemas.
 * Schemas with an `id` in their metadata become shared components. A request schema
 * differs from its answer where defaults apply (a default makes a field optional in the
 * request and always present in the answer), so request components are suffixed `Input`.
 */
function schemaRegistry(): { schemas: Record<string, unknown>; toSchema: ToSchema } {
  const schemas: Record<string, unknown> = {};
  const toSchema: ToSchema = (schema, io) => {
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
  return { schemas, toSchema };
}

/** The path's ids, the query's fields, the version header, and the Idempotency-Key of a POST. */
function operationParameters(r: RouteDef, toSchema: ToSchema): unknown[] {
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
      const { description, ...schema } = toSchema(s, 'output');
      params.push({ name, in: 'query', required: false, description, schema });
    }
  }
  params.push(ref('parameters', VERSION_HEADER));
  if (r.method === 'post') params.push(ref('parameters', 'Idempotency-Key'));
  return params;
}

const jsonContent = (schema: unknown, example: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});

/** A route's example answer as a sandbox gets it: with the `livemode` the route fills in (http/livemode.ts). */
function exampleAnswer(r: RouteDef): unknown {
  const example = structuredClone(r.example.response);
  livemodeStamp(r.response)?.(example, false);
  return example;
}

/** The route's success answers: its status (a file, an object or no content), and the 202 of a route that may not know its outcome yet. */
function successResponses(r: RouteDef, toSchema: ToSchema): Record<string, unknown> {
  const binary = { schema: { type: 'string', format: 'binary' } };
  const successHeaders = {
    'X-Request-Id': ref('headers', 'X-Request-Id'),
    [VERSION_HEADER]: ref('headers', VERSION_HEADER),
    ...RATE_LIMIT_HEADERS,
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
        ? { description: answerDescription(r), headers: successHeaders, content: jsonContent(toSchema(r.response, 'output'), exampleAnswer(r)) }
        : { description: 'Done, no content', headers: successHeaders },
  };
  if (r.accepted && r.response) {
    responses[202] = { description: r.accepted, headers: successHeaders, content: jsonContent(toSchema(r.response, 'output'), undefined) };
  }
  return responses;
}

/** The problems a route can answer, as references to the shared problem responses. */
function problemResponseRefs(r: RouteDef): Record<string, unknown> {
  // 400 everywhere: any request may name an unknown version.
  const statuses = new Set<number>([400, 401, 429, 503, ...(r.problems ?? [])]);
  if (r.path.includes('{')) statuses.add(404);
  if (r.method === 'post') [409, 422].forEach((s) => statuses.add(s));
  if (r.body) [413, 415].forEach((s) => statuses.add(s));
  const responses: Record<string, unknown> = {};
  for (const status of [...statuses].sort()) responses[status] = ref('responses', PROBLEM_RESPONSES[status]!.name);
  return responses;
}

/** One route as an OpenAPI operation. */
function operationOf(r: RouteDef, toSchema: ToSchema) {
  const parameters = operationParameters(r, toSchema);
  const responses = successResponses(r, toSchema);
  Object.assign(responses, problemResponseRefs(r));
  return {
    operationId: r.operationId,
    summary: r.summary,
    description: r.description,
    tags: [r.tag],
    parameters,
    ...(r.body
      ? {
          requestBody: {
            // A request without a body reads as {}: required only when {} is refused.
            required: !r.body.safeParse({}).success,
            content: jsonContent(toSchema(r.body, 'input'), r.example.request),
          },
        }
      : {}),
    responses,
  };
}

/** An event type as the document's `webhooks` show it: a POST the service makes to you. */
function webhookOf(w: WebhookDoc, toSchema: ToSchema) {
  return {
    post: {
      operationId: `on${w.name}`,
      summary: w.type,
      description: `POSTed to your webhook endpoints that take \`${w.type}\`, and to the object's \`notify_url\`, when it happens (docs/webhooks.md).`,
      tags: ['Event'],
      // Sent by the service to you: your endpoint checks the signature, not AppKeys.
      security: [],
      parameters: Object.keys(SIGNATURE_HEADERS).map((name) => ref('parameters', name)),
      requestBody: { required: true, content: { 'application/json': { schema: toSchema(w.schema, 'output') } } },
      responses: {
        200: { description: 'Received: any 2xx answer delivers the event' },
        410: { description: 'Gone: stops this delivery (nothing more is retried for it)' },
        '4XX': { description: 'Any other answer fails the attempt: it is retried with backoff' },
      },
    },
  };
}

/** The document's `info`, for this version of the API. */
const infoOf = (version: string) => ({
  title: 'Payment Service API',
  version,
  description:
    'Transactions and their hosted payment screen, sales, stored payment methods, subscriptions, the catalogue, ' +
    'clients, wallets and transfers. Amounts are decimal numbers in major units of their currency. ' +
    'Errors are RFC 9457 problem details; lists are paginated with `page` and `page_size`.',
  contact: { name: 'Payment Service API support' },
  // The package is private: no public licence. A LicenseRef- is how SPDX names one of
  // your own; both linters accept it, and no URL has to be made up.
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
});

export function buildOpenApi(routes: RouteDef[], options: OpenApiOptions) {
  const { schemas, toSchema } = schemaRegistry();
  const origin = options.origin ?? 'http://localhost:3000';
  const { problem, responses: problemResponses } = problemComponents(origin);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) (paths[r.path] ??= {})[r.method] = operationOf(r, toSchema);
  const webhooks: Record<string, unknown> = {};
  for (const w of options.webhooks ?? []) webhooks[w.type] = webhookOf(w, toSchema);
  const used = new Set(routes.map((r) => r.tag));
  return {
    openapi: '3.1.0',
    info: infoOf(options.version),
    servers: [{ url: `${origin}/v1`, description: 'This service' }],
    security: [{ AppKeys: [] }],
    tags: Object.entries(TAGS)
      .filter(([name]) => used.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    ...(options.webhooks ? { webhooks } : {}),
    components: {
      schemas: { ...schemas, Problem: problem },
      responses: problemResponses,
      headers: HEADERS,
      parameters: headerParameters(Boolean(options.webhooks)),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
