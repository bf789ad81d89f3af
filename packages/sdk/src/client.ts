import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client as FetchClient } from 'openapi-fetch';
import { ApiError } from './errors.js';
import { API_VERSION } from './generated/version.js';
import { PageIterator } from './pagination.js';
import { type Resources, resources } from './generated/resources.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryingFetch } from './retry.js';
import type { Answer, CallOptions, Item, Method, PathParams, PathWith, Query, RequestBody, paths } from './types.js';

export interface ClientOptions {
  /** The service's address, `https://payments.example` (`/v1` is added unless it is there). */
  baseUrl: string;
  /** The environment's key pair, sent as `Authorization: AppKeys <public>:<secret>`. */
  publicKey: string;
  secretKey: string;
  /** Replaces `globalThis.fetch` (a proxy's agent, a recording test double). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after the first attempt of a call (default 2); 0 sends each request once. */
  maxRetries?: number;
  /** The first backoff step, ms (default 500; doubled on each retry). */
  initialRetryDelayMs?: number;
  /** The longest backoff step, ms (default 8,000). */
  maxRetryDelayMs?: number;
  /** The longest `Retry-After` the client waits for, ms (default 60,000); a longer one is thrown. */
  maxRetryAfterMs?: number;
  /** How long one attempt may take, ms (default 60,000); a timed-out attempt is retried when safe. */
  timeoutMs?: number;
  /**
   * `Payment-Service-Version`: the API version the calls are written for. Default: the
   * version this SDK's types were generated from, so a newer service answers as that one.
   */
  apiVersion?: string;
  /** More headers for every request. */
  headers?: Record<string, string>;
}

/** The URL of the API: the service's address with `/v1`. */
const apiUrl = (baseUrl: string) => {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`;
};

/** Gives every POST an Idempotency-Key unless the call brought its own. */
const idempotencyKeys = {
  onRequest({ request }: { request: Request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', randomUUID());
  },
};

type Init = { path?: unknown; query?: unknown; body?: unknown };

/** The typed calls the resources are made of; each throws an ApiError unless the answer is a success. */
export interface Calls {
  get<P extends PathWith<'get'>>(path: P, params: PathParams<P, 'get'>, options?: CallOptions, query?: Query<P>): Promise<Answer<P, 'get'>>;
  post<P extends PathWith<'post'>>(path: P, params: PathParams<P, 'post'>, body?: RequestBody<P, 'post'>, options?: CallOptions): Promise<Answer<P, 'post'>>;
  patch<P extends PathWith<'patch'>>(path: P, params: PathParams<P, 'patch'>, body?: RequestBody<P, 'patch'>, options?: CallOptions): Promise<Answer<P, 'patch'>>;
  del<P extends PathWith<'delete'>>(path: P, params: PathParams<P, 'delete'>, options?: CallOptions): Promise<Answer<P, 'delete'>>;
  /** A list, page after page as it is iterated. */
  list<P extends PathWith<'get'>>(path: P, params: PathParams<P, 'get'>, query?: Query<P>, options?: CallOptions): PageIterator<Item<P>>;
}

/**
 * A client of the Payment Service API v1: one object per resource (`transactions`,
 * `sales`, …) with typed calls, and `api`, the underlying openapi-fetch client typed by
 * the document's `paths`, for any operation (with the same keys and retries).
 */
export function createClient(options: ClientOptions): PaymentClient {
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    timeoutMs: options.timeoutMs ?? DEFAULT_RETRY_POLICY.timeoutMs,
  };
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api: FetchClient<paths> = createFetchClient<paths>({
    baseUrl: apiUrl(options.baseUrl),
    fetch: retryingFetch(send, policy),
    headers: {
      Authorization: `AppKeys ${options.publicKey}:${options.secretKey}`,
      'Payment-Service-Version': options.apiVersion ?? API_VERSION,
      ...options.headers,
    },
  });
  api.use(idempotencyKeys);

  // The typing is done by Calls, from the generated paths; openapi-fetch's own generic
  // signature is bypassed here because the path is a type parameter.
  const request = api.request as unknown as (method: Method, path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const call = async (method: Method, path: string, init: Init, opts: CallOptions = {}): Promise<any> => {
    const headers = { ...opts.headers, ...(opts.idempotencyKey === undefined ? {} : { 'Idempotency-Key': opts.idempotencyKey }) };
    const { data, error, response } = await request(method, path, {
      params: { path: init.path, query: init.query },
      body: init.body,
      headers,
      signal: opts.signal,
    });
    if (!response.ok) throw new ApiError(response, error);
    return data;
  };

  const calls: Calls = {
    get: (path, params, opts, query) => call('get', path, { path: params, query }, opts),
    post: (path, params, body, opts) => call('post', path, { path: params, body }, opts),
    patch: (path, params, body, opts) => call('patch', path, { path: params, body }, opts),
    del: (path, params, opts) => call('delete', path, { path: params }, opts),
    list: (path, params, query, opts) => new PageIterator((q) => call('get', path, { path: params, query: q }, opts), query),
  };

  return { api, ...resources(calls) };
}

/** What createClient returns: the resources, and `api`, the openapi-fetch client underneath. */
export type PaymentClient = Resources & { api: FetchClient<paths> };
