import type { components, paths, webhooks } from './generated/api.js';

// Types of the calls, derived from the `paths` that openapi-typescript generates from the
// OpenAPI document (src/generated/api.ts, made at build time): nothing here restates a
// field. A change of the API changes these types at the next build.

export type { components, paths, webhooks };

/** The HTTP methods the API uses. */
export type Method = 'get' | 'post' | 'patch' | 'delete';

/** The paths that have an operation for `M`. */
export type PathWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

/** The operation of `M` on `P`, as generated. */
export type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;

/** The JSON body of a successful answer (200, 201 or 202); `undefined` for a 204. */
export type Answer<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? Json<R[Extract<keyof R, 200 | 201 | 202>]> | (204 extends keyof R ? undefined : never)
    : never;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** The query parameters of an operation (filters, `page`, `page_size`). */
export type Query<P extends keyof paths, M extends Method = 'get'> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The path parameters of an operation (`{ id }`, `{ clientId, id }`); none: an empty object. */
export type PathParams<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { path: infer X } } ? X : Record<string, never>;

/** What every call takes besides its own parameters. */
export interface CallOptions {
  /**
   * The Idempotency-Key of a POST. By default each POST gets a random UUID, reused by the
   * client's own retries of that call; give your own (an order id) to make a repeat of the
   * call, from another process or after a crash, answer what the first one did.
   */
  idempotencyKey?: string;
  /** Aborts the call, its retries and the waits between them. */
  signal?: AbortSignal;
  /** More request headers for this call. */
  headers?: Record<string, string>;
}

/**
 * The body and options of a POST or PATCH: the body is optional where the operation's is
 * (a capture without a body captures the whole hold).
 */
export type BodyArgs<P extends keyof paths, M extends 'post' | 'patch'> =
  Operation<P, M> extends { requestBody: object }
    ? [body: RequestBody<P, M>, options?: CallOptions]
    : [body?: RequestBody<P, M>, options?: CallOptions];

/** One object of a list operation's `results`. */
export type Item<P extends PathWith<'get'>> = Answer<P, 'get'> extends { results: (infer T)[] } ? T : never;

type Schemas = components['schemas'];

// The objects of the API, by their names in the document.
export type Transaction = Schemas['Transaction'];
export type Sale = Schemas['Sale'];
export type Authorization = Schemas['Authorization'];
export type Subscription = Schemas['Subscription'];
/** An event as `/v1/event/` lists it, with its deliveries (not a webhook's body: see WebhookEvent). */
export type ApiEvent = Schemas['Event'];
/** An event as `/v1/event/{id}/` shows it, with every delivery attempt. */
export type ApiEventWithAttempts = Schemas['EventWithAttempts'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type Product = Schemas['Product'];
export type Plan = Schemas['Plan'];
export type Tax = Schemas['Tax'];
export type ShippingOption = Schemas['ShippingOption'];
export type Coupon = Schemas['Coupon'];
export type Gateway = Schemas['Gateway'];
export type Currency = Schemas['Currency'];
/** A client of the platform (a seller with IBANs and documents), not this SDK's client. */
export type PlatformClient = Schemas['Client'];
export type Iban = Schemas['Iban'];
export type ClientDocument = Schemas['Document'];
export type Wallet = Schemas['Wallet'];
export type WalletEntry = Schemas['WalletEntry'];
export type Transfer = Schemas['Transfer'];
export type Balance = Schemas['Balance'];
export type BalanceTransaction = Schemas['BalanceTransaction'];
export type Branding = Schemas['Branding'];
export type ReturnSecret = Schemas['ReturnSecret'];
/** The body of every error answer (RFC 9457 problem details). */
export type Problem = Schemas['Problem'];
/** The `type` URNs of the problems the API answers (`urn:problem:not-found`, …). */
export type ProblemType = Problem['type'];
