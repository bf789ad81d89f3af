import { createHmac } from 'node:crypto';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { UUID_PATTERN } from '../domain/ids';
import type { EnvironmentRow } from '../store/schema';
import { claimKey, completeKey, KEY_ABANDONED_MS, releaseKey } from '../store/idempotency';
import { serverSecret } from '../store/secrets';
import { ApiError, invalid, problemBody, RecordedError } from './problem';

// A route is declared once: the router mounts it and the OpenAPI document is generated
// from the same declaration and the same zod schemas.

type Method = 'get' | 'post' | 'patch' | 'delete';

export interface RouteContext<B, Q> {
  env: EnvironmentRow;
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
   * PATCH (an external id already used), 413 too large, 502 gateway failed.
   */
  problems?: (402 | 409 | 413 | 502)[];
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

/** A file to send as it is, for download, never rendered by the browser. */
export interface FileAnswer {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

function sendFile(res: Response, file: FileAnswer) {
  res.attachment(file.name);
  res.status(200).set({
    'Content-Type': file.contentType,
    'Content-Length': String(file.bytes.byteLength),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
  });
  res.end(file.bytes);
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

/** A keyed request of a money-moving route: the work, then its response recorded. */
async function runOutside(
  run: (db: Db) => Promise<string | undefined>,
  db: Db,
  ids: { environmentId: string; key: string },
  status: number,
): Promise<string | undefined> {
  let output: string | undefined;
  try {
    output = await run(db);
  } catch (err) {
    if (err instanceof RecordedError) await completeKey(db, { ...ids, status: err.status, body: problemBody(err) });
    else await releaseKey(db, ids);
    throw err;
  }
  await completeKey(db, { ...ids, status, body: output ?? '' });
  return output;
}

export function mountRoutes(router: Router, routes: RouteDef[], deps: Deps): void {
  let secret: Promise<string> | undefined;
  const idempotencyKey = () => (secret ??= serverSecret(deps.database.db, 'idempotency'));
  for (const def of routes) {
    const expressPath = def.path.replace(/\{(\w+)\}/g, ':$1');
    router[def.method](expressPath, async (req, res) => {
      // Ids are UUIDs; anything else cannot name an object, so it is simply not found.
      for (const value of Object.values(req.params as Record<string, string>)) {
        if (!UUID_PATTERN.test(value)) throw new ApiError('not_found', 'No such object');
      }
      const env = req.environment!;
      const query = def.query ? def.query.safeParse(req.query) : undefined;
      if (query && !query.success) throw invalid(query.error, 'query');
      let body: unknown;
      if (def.body) {
        // No body at all reads as {}: actions whose fields are all optional need none.
        const empty = !req.get('transfer-encoding') && Number(req.get('content-length') ?? 0) === 0;
        if (!empty && !req.is('application/json')) {
          throw new ApiError('unsupported_media_type', 'Send the body as application/json', [
            { path: '(body)', message: 'Content-Type must be application/json' },
          ]);
        }
        const parsed = def.body.safeParse(empty ? {} : req.body);
        if (!parsed.success) throw invalid(parsed.error);
        body = parsed.data;
      }
      const handle = (db: Db) =>
        def.handler({
          env,
          db,
          body,
          query: query?.data,
          params: req.params as Record<string, string>,
          req,
          deps,
          baseUrl: baseUrlOf(req, deps),
        });
      if (def.file) return sendFile(res, (await handle(deps.database.db)) as FileAnswer);
      const run = async (db: Db) => {
        const result = await handle(db);
        return result === undefined ? undefined : JSON.stringify(result);
      };

      const key = def.method === 'post' ? req.get('idempotency-key') : undefined;
      if (key === undefined) return send(res, def.status, await run(deps.database.db));
      if (!IDEMPOTENCY_KEY.test(key)) {
        throw new ApiError('invalid_request', 'Idempotency-Key must be 1–255 visible ASCII characters', [
          { path: 'header.Idempotency-Key', message: 'must be 1–255 visible ASCII characters' },
        ]);
      }
      const db = deps.database.db;
      const ids = { environmentId: env.id, key };
      // Keyed: a body may hold a card number, and a plain hash of one can be reversed.
      const requestHash = createHmac('sha256', await idempotencyKey())
        .update(`${def.method} ${req.path}\n${canonical(req.body ?? null)}`)
        .digest('hex');
      const outside = typeof def.movesMoney === 'function' ? def.movesMoney(body) : def.movesMoney === true;
      // A request still inside its gateway calls is alive, however long they take: a repeat
      // of its key waits (409) rather than running the money movement a second time.
      const calls = outside ? (def.gatewayCalls?.(body) ?? 1) : 0;
      const abandonedAfterMs = KEY_ABANDONED_MS + calls * deps.config.paymentClaimMs;
      const claim = await claimKey(db, { ...ids, requestHash, now: deps.now(), abandonedAfterMs });
      switch (claim.kind) {
        case 'mismatch':
          throw new ApiError('idempotency_mismatch', 'This Idempotency-Key was used with a different request');
        case 'in_flight':
          throw new ApiError('idempotency_in_flight', 'Retry once the first request has finished');
        case 'replay':
          res.set('Idempotent-Replayed', 'true');
          return send(res, claim.status, claim.body);
      }
      if (outside) return send(res, def.status, await runOutside(run, db, ids, def.status));
      let output: string | undefined;
      let recorded: RecordedError | undefined;
      try {
        // The work and the stored response commit together: after a crash either both
        // exist (a retry replays) or neither does (a retry does the work once).
        output = await db.transaction().execute(async (trx) => {
          let out: string | undefined;
          try {
            out = await run(trx);
          } catch (err) {
            if (!(err instanceof RecordedError)) throw err;
            recorded = err;
            await completeKey(trx, { ...ids, status: err.status, body: problemBody(err) });
            return undefined;
          }
          await completeKey(trx, { ...ids, status: def.status, body: out ?? '' });
          return out;
        });
      } catch (err) {
        await releaseKey(db, ids);
        throw err;
      }
      if (recorded) throw recorded;
      send(res, def.status, output);
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

/**
 * methodNotAllowed on every declared path, with the methods declared for it (HEAD with GET):
 * mounted after the routes, so it only sees what none of them took.
 */
export function mountMethodNotAllowed(router: Router, routes: RouteDef[]): void {
  const methods = new Map<string, Set<string>>();
  for (const def of routes) {
    const set = methods.get(def.path) ?? new Set<string>();
    set.add(def.method.toUpperCase());
    if (def.method === 'get') set.add('HEAD');
    methods.set(def.path, set);
  }
  for (const [path, set] of methods) router.all(path.replace(/\{(\w+)\}/g, ':$1'), methodNotAllowed([...set]));
}
