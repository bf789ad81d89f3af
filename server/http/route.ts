import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import { type Deps, scopedDeps } from '../deps';
import type { Db } from '../store/db';
import { UUID_PATTERN } from '../domain/ids';
import type { AuthenticatedEnvironment } from '../store/api-keys';
import { livemodeStamp } from './livemode';
import { runIdempotent } from '../commands/idempotent';
import { serverSecret } from '../store/secrets';
import { ApiError, inFlight, invalid, problemBody, RecordedError, replayedProblem } from './problem';

// A route is declared once: the router mounts it and the OpenAPI document is generated
// from the same declaration and the same zod schemas.

type Method = 'get' | 'post' | 'patch' | 'delete';

export interface RouteContext<B, Q> {
  env: AuthenticatedEnvironment;
  /**
   * The database handle to use: inside a POST with an Idempotency-Key it is the
   * transaction that also records the response, so both commit or neither does (except
   * for routes that move money, see RouteDef.movesMoney).
   */
  db: Db;
  body: B;
  query: Q;
  params: Record<string, string>;
  req: Request;
  deps: Deps;
  /** Absolute origin for links in responses. */
  baseUrl: string;
  /**
   * A money-moving POST with an Idempotency-Key: what its gateway calls carry, so a retry
   * after a crash rolls them forward instead of starting new ones (payments/outcome.ts, `boundStep`).
   */
  binding: string | null;
  /** Answer 202 instead of the route's status: the outcome is not known yet (RouteDef.accepted). */
  accepted(): void;
}

export interface RouteDef<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** OpenAPI-style path under /v1, always with a trailing slash: `/product/{id}/`. */
  path: string;
  /** The OpenAPI operationId, as a person would write it: `listTransactions`, `captureSale`. */
  operationId: string;
  /** One line, for lists of operations. */
  summary: string;
  /** What the operation does and answers, for the reference (Markdown). */
  description: string;
  tag: string;
  /**
   * A body when the route reads one. A request without any body reads as `{}`, so the
   * document declares the body required only when `{}` is refused.
   */
  body?: B;
  query?: Q;
  /** Absent for 204 responses. */
  response?: R;
  status: 200 | 201 | 204;
  /**
   * Answers beyond the common ones (400, 401, 404 on paths with ids, 409 and 422 on POST,
   * 413 and 415 with a body), for the OpenAPI document: 402 declined, 409 conflict of a
   * PATCH (an external id already used), 403 refused by a setting of the environment, 413
   * too large, 502 gateway failed.
   */
  problems?: (402 | 403 | 409 | 413 | 502)[];
  /**
   * The route may answer 202 with its usual body, in a pending state (a gateway call whose
   * outcome is not known yet): what the 202 means, for the OpenAPI document.
   */
  accepted?: string;
  /** A request and its answer, shown in the OpenAPI document (and checked against the schemas by the linters). */
  example: { request?: z.input<B>; response?: z.input<R> };
  /**
   * The media types of a route that answers with a file instead of JSON: its handler
   * returns a FileAnswer, sent as an attachment.
   */
  file?: string[];
  /**
   * The handler calls a gateway (through server/payments/), which must never happen
   * inside a database transaction: under an Idempotency-Key it runs outside the one that
   * records the response. The key is claimed first all the same (a concurrent repeat is a
   * 409, a later one replays), and the use case's own reservation makes its money
   * movement happen once. A function decides by the parsed body (a transaction moves
   * money only when it has a `source`).
   */
  movesMoney?: true | ((body: z.output<B>) => boolean);
  /**
   * How many gateway calls one request can make at most (default 1 for a route that moves
   * money): its Idempotency-Key is not taken over as abandoned while they may still run.
   */
  gatewayCalls?: (body: z.output<B>) => number;
  handler(ctx: RouteContext<z.output<B>, z.output<Q>>): Promise<z.input<R> | void>;
}

export function route<B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(
  def: RouteDef<B, Q, R>,
): RouteDef {
  return def as unknown as RouteDef;
}

/**
 * A file to send as it is, for download, never rendered by the browser: its bytes, or its
 * text streamed chunk by chunk (a report of any length; the next chunk is read only once
 * the client has taken the last).
 */
export type FileAnswer = { name: string; contentType: string; headers?: Record<string, string> } & ({ bytes: Uint8Array } | { chunks: AsyncIterable<string> });

async function sendFile(res: Response, file: FileAnswer) {
  res.attachment(file.name);
  res.status(200).set({
    'Content-Type': file.contentType,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
  });
  // A file's own words beside it (a payout file downloaded again warns that it pays twice).
  if (file.headers) res.set(file.headers);
  if ('bytes' in file) return void res.set('Content-Length', String(file.bytes.byteLength)).end(file.bytes);
  try {
    for await (const chunk of file.chunks) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await once(res, 'drain');
    }
  } catch (err) {
    // The status line has gone: the client sees a cut-off file, never half a file that looks whole.
    res.destroy(err as Error);
    return;
  }
  res.end();
}

export function baseUrlOf(req: Request, deps: Deps): string {
  return deps.config.publicUrl ?? `${req.protocol}://${req.get('host')}`;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Stable text of a JSON value, keys sorted, so the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** No ETag: answers are per tenant and change with every write; hashing each one bought nothing. */
function send(res: Response, status: number, body: string | undefined) {
  if (status === 204) return void res.status(204).end();
  const bytes = Buffer.from(body ?? '');
  res.status(status).setHeader('Content-Type', `${status >= 400 ? 'application/problem+json' : 'application/json'}; charset=utf-8`);
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

/** `/product/{id}/` as Express writes it: `/product/:id/`. */
const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The route's query schema refusing unknown parameters; no query schema: no parameter at all. */
function strictQuery(query: z.ZodType | undefined): z.ZodType {
  if (query === undefined) return z.strictObject({});
  if (query instanceof z.ZodObject) return query.strict();
  throw new Error('a route\'s query must be a z.object');
}

/** One request to a route: its parsed input, and what it answers with once the handler has run. */
interface Call {
  def: RouteDef;
  req: Request;
  body: unknown;
  /** The route's status, or 202 once the handler says the outcome is not known yet. */
  status: number;
  /** Set for a money-moving keyed request before the handler runs (RouteContext.binding). */
  binding: string | null;
  /** Runs the handler on `db`: its answer as it is (a FileAnswer) … */
  handle(db: Db): Promise<unknown>;
  /** … or as the JSON text to send, undefined for no content. */
  run(db: Db): Promise<string | undefined>;
}

/**
 * Ids are UUIDs; anything else cannot name an object, so it is simply not found. One in
 * upper case names the same object (RFC 9562): read in lower case, as they are stored.
 */
function checkIds(req: Request): void {
  const params = req.params as Record<string, string>;
  for (const [name, value] of Object.entries(params)) {
    if (!UUID_PATTERN.test(value)) throw new ApiError('not_found', 'No such object');
    params[name] = value.toLowerCase();
  }
}

/** The body of a route that declares one, parsed; no body at all reads as {} (actions whose fields are all optional need none). */
function parseBody(schema: z.ZodType, req: Request): unknown {
  const empty = !req.get('transfer-encoding') && Number(req.get('content-length') ?? 0) === 0;
  if (!empty && !req.is('application/json')) {
    throw new ApiError('unsupported_media_type', 'Send the body as application/json', [
      { path: '(body)', message: 'Content-Type must be application/json' },
    ]);
  }
  const parsed = schema.safeParse(empty ? {} : req.body);
  if (!parsed.success) throw invalid(parsed.error);
  if (req.inexactNumbers) {
    const errors = req.inexactNumbers.map((path) => ({ path, message: 'has more than 15 significant digits, which a number cannot carry exactly (it would be read rounded)' }));
    throw new ApiError('invalid_request', errors.map((e) => `${e.path}: ${e.message}`).slice(0, 3).join('; '), errors);
  }
  return parsed.data;
}

/** Checks the request's ids, query and body, in that order, and readies its handler. */
function callOf(def: RouteDef, queryOf: z.ZodType, req: Request, deps: Deps, stamp: ReturnType<typeof livemodeStamp>): Call {
  checkIds(req);
  const env = req.environment!;
  const query = queryOf.safeParse(req.query);
  if (!query.success) throw invalid(query.error, 'query');
  const body = def.body ? parseBody(def.body, req) : undefined;
  const call: Call = {
    def,
    req,
    body,
    status: def.status,
    binding: null,
    handle: (db) =>
      def.handler({
        env,
        db,
        body,
        query: query.data,
        params: req.params as Record<string, string>,
        req,
        deps: scopedDeps(deps, req),
        baseUrl: baseUrlOf(req, deps),
        binding: call.binding,
        accepted: () => {
          if (!def.accepted) throw new Error(`${def.operationId} does not declare a 202`);
          call.status = 202;
        },
      }),
    run: async (db) => {
      const result = await call.handle(db);
      if (result === undefined) return undefined;
      stamp?.(result, env.mode === 'live');
      return JSON.stringify(result);
    },
  };
  return call;
}

/** A POST with an Idempotency-Key: claimed, then replayed, refused, or run and recorded. */
async function answerKeyed(call: Call, key: string, res: Response, deps: Deps, secret: () => Promise<string>): Promise<void> {
  const { def, req } = call;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1–255 visible ASCII characters', [
      { path: 'header.Idempotency-Key', message: 'must be 1–255 visible ASCII characters' },
    ]);
  }
  // Keyed: a body may hold a card number, and a plain hash of one can be reversed.
  const requestHash = createHmac('sha256', await secret())
    .update(`${def.method} ${req.path}\n${canonical(req.body ?? null)}`)
    .digest('hex');
  const outside = typeof def.movesMoney === 'function' ? def.movesMoney(call.body) : def.movesMoney === true;
  // A request still inside its gateway calls is alive, however long they take: a repeat
  // of its key waits (409) rather than running the money movement a second time.
  const outcome = await runIdempotent(deps.database.db, {
    environmentId: req.environment!.id,
    key,
    requestHash,
    now: deps.now,
    gatewayCalls: outside ? (def.gatewayCalls?.(call.body) ?? 1) : 0,
    paymentClaimMs: deps.config.paymentClaimMs,
    async run(db, binding) {
      if (outside) call.binding = binding;
      const output = await call.run(db);
      return { value: output, end: { status: call.status, body: output ?? '' } };
    },
    failed: (err) => (err instanceof RecordedError ? { status: err.status, body: problemBody(err) } : 'release'),
  });
  switch (outcome.kind) {
    case 'mismatch':
      throw new ApiError('idempotency_mismatch', 'This Idempotency-Key was used with a different request');
    case 'in_flight':
      throw inFlight(outcome.retryAfterMs);
    case 'replay':
      res.set('Idempotent-Replayed', 'true');
      return send(res, outcome.status, outcome.status >= 400 ? replayedProblem(res, outcome.body) : outcome.body);
    case 'ran':
      return send(res, call.status, outcome.value);
  }
}

/** `readBody` parses the body of the routes that declare one. */
export function mountRoutes(router: Router, routes: RouteDef[], deps: Deps, readBody: RequestHandler): void {
  let secret: Promise<string> | undefined;
  const idempotencyKey = () => (secret ??= serverSecret(deps.database.db, 'idempotency'));
  for (const def of routes) {
    // A parameter the operation does not know is refused, not ignored: a typo in a filter
    // (`?orderid=`) must not answer the whole unfiltered list.
    const queryOf = strictQuery(def.query);
    const stamp = livemodeStamp(def.response);
    router[def.method](expressPath(def.path), ...(def.body ? [readBody] : []), async (req, res) => {
      const call = callOf(def, queryOf, req, deps, stamp);
      if (def.file) return sendFile(res, (await call.handle(deps.database.db)) as FileAnswer);
      const key = def.method === 'post' ? req.get('idempotency-key') : undefined;
      if (key !== undefined) return answerKeyed(call, key, res, deps, idempotencyKey);
      const output = await call.run(deps.database.db);
      send(res, call.status, output);
    });
  }
}

/**
 * A path of the API asked with a method it does not have: 405 with `Allow`, not a 404 (the
 * path exists). OPTIONS answers 204 with the same `Allow`.
 */
export function methodNotAllowed(allow: string[]): RequestHandler {
  const header = [...allow, 'OPTIONS'].join(', ');
  return (req, res) => {
    res.set('Allow', header);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${header}`);
  };
}

/** The methods of each declared path (HEAD with GET), as Express paths. */
function methodsByPath(routes: RouteDef[]): Map<string, string[]> {
  const methods = new Map<string, Set<string>>();
  for (const def of routes) {
    const path = expressPath(def.path);
    const set = methods.get(path) ?? new Set<string>();
    set.add(def.method.toUpperCase());
    if (def.method === 'get') set.add('HEAD');
    methods.set(path, set);
  }
  return new Map([...methods].map(([path, set]) => [path, [...set]]));
}

/**
 * OPTIONS on every declared path: 204 with `Allow`, without credentials (it reveals only
 * what the public document says). Mounted before authentication.
 */
export function mountOptions(router: Router, routes: RouteDef[]): void {
  for (const [path, allow] of methodsByPath(routes)) router.options(path, methodNotAllowed(allow));
}

/**
 * methodNotAllowed on every declared path, with the methods declared for it (HEAD with GET):
 * mounted after the routes, so it only sees what none of them took.
 */
export function mountMethodNotAllowed(router: Router, routes: RouteDef[]): void {
  for (const [path, allow] of methodsByPath(routes)) router.all(path, methodNotAllowed(allow));
}
