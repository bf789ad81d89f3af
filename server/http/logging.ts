import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express, Request } from 'express';
import pino, { type Logger } from 'pino';

const STARTED = Symbol('request start');
const LOG = Symbol('request logger');

declare module 'node:http' {
  interface IncomingMessage {
    /** Also sent as X-Request-Id, so a merchant can quote it. */
    id: string;
    /** The request's logger: its lines carry the request id (and trace). Made when first used. */
    log: Logger;
    [LOG]?: Logger;
    /** performance.now() when the request reached the app, for the access line. */
    [STARTED]?: number;
    /** The W3C trace the caller's `traceparent` put this request in, if it sent a valid one. */
    traceId?: string;
  }
}

/**
 * Keys whose values never reach a log, at any depth up to four levels (pino's redaction
 * takes no recursive wildcard): bodies, card fields, the checkout form's gateway fields,
 * keys and the headers that carry credentials.
 */
const SECRET_KEYS = [
  'body',
  'rawBody',
  'card',
  'card_number',
  'card_cvc',
  'card_expiry',
  'card_name',
  'cvc',
  'fields',
  'iban',
  'secret_key',
  'webhook_secret',
  // A connected processor's keys (payments/processors.ts), its publishable key included: write-only like the others.
  'publishable_key',
  'credentials',
  // A webhook endpoint's signing secrets.
  'secret',
  'previous_secret',
  'authorization',
  'cookie',
  'set-cookie',
  'x-csrf-token',
  'idempotency-key',
];
const REDACTED_PATHS = [0, 1, 2, 3].flatMap((depth) =>
  SECRET_KEYS.map((key) => `${'*.'.repeat(depth)}${/^\w+$/.test(key) ? key : `["${key}"]`}`.replace('.["', '["')),
);

/** Properties of an error that hold no input: codes, statuses, where a database refused. */
const SAFE_ERROR_KEYS = ['code', 'errno', 'status', 'statusCode', 'type', 'severity', 'routine', 'table', 'column', 'constraint'];

/**
 * Errors as logged: their name, message, stack and the properties above, their cause the
 * same way. Never the rest: body-parser's errors carry the whole `body`, and the message of
 * a parse error (a SyntaxError, an http-errors 4xx) quotes the request, so those lose their
 * message and stack too.
 */
export function serializeError(err: unknown, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) return { name: typeof err };
  const quotesInput = err instanceof SyntaxError || 'body' in err || 'expose' in err;
  const out: Record<string, unknown> = { name: err.name };
  if (!quotesInput) {
    out.message = err.message;
    out.stack = err.stack;
  }
  const props = err as unknown as Record<string, unknown>;
  for (const key of SAFE_ERROR_KEYS) {
    const value = props[key];
    if (typeof value === 'string' || typeof value === 'number') out[key] = value;
  }
  if (err.cause !== undefined && depth < 3) out.cause = serializeError(err.cause, depth + 1);
  return out;
}

/** Nothing logs bodies, cards or credentials on purpose; if something ever does, it is masked. */
export const LOG_OPTIONS = {
  redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  serializers: { err: (err: unknown) => serializeError(err) },
} satisfies pino.LoggerOptions;

/**
 * JSON lines on stdout. Written asynchronously: a synchronous write per line was 6 % of a
 * payment page's CPU. pino flushes what is buffered when the process exits (a crash
 * included); only a SIGKILL can lose the last few milliseconds of lines.
 */
export function createLogger(level: string): Logger {
  return pino({ level, ...LOG_OPTIONS }, pino.destination({ dest: 1, sync: false }));
}

/** Milliseconds since the request reached the app. */
export const elapsedMs = (req: IncomingMessage): number => Math.round(performance.now() - req[STARTED]!);

/**
 * The path as logged, without its query string (it may carry emails or search terms):
 * checkout tokens and dashboard invites are bearer secrets, so they never reach the logs.
 */
export function loggablePath(url: string): string {
  return url
    .replace(/^\/pay\/[^/?]+/, '/pay/:token')
    .replace(/^\/dashboard\/invite\/[^/?]+/, '/dashboard/invite/:token')
    .replace(/\?.*$/, '');
}

// W3C Trace Context: version 00, a 32-hex trace id and a 16-hex parent id, neither all
// zeros, and flags. Anything else is ignored, as the recommendation says.
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a valid `traceparent` header, so our lines join the caller's trace. */
function traceIdOf(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' ? TRACEPARENT.exec(header.trim())?.[1] : undefined;
}

/**
 * One line per request when it ends: request id, method, path without query or token,
 * status, time. No headers, no bodies. Flat on purpose: pino writes strings and numbers
 * straight into the line, while nested objects go through a generic serializer (measured:
 * 12 % of a payment page's CPU). `req.log` is a child logger bound to the request's id and
 * trace, made on its first line; handlers hand it to the use cases they call through
 * `scopedDeps` (deps.ts), so every line written while answering carries the request id.
 * Passed, not kept in an AsyncLocalStorage: on Node 20 its promise hook runs for every
 * promise, 5 % of a stored card's charge (docs/performance-changelog.md). Wrapped around
 * the app rather than used in it: a middleware is a router layer every request walks
 * through.
 */
export function withRequestLogging(app: Express, logger: Logger): RequestListener {
  Object.defineProperty(app.request, 'log', {
    get(this: Request): Logger {
      return (this[LOG] ??= logger.child(this.traceId ? { reqId: this.id, traceId: this.traceId } : { reqId: this.id }));
    },
  });
  // Built from known fields only, so the access line skips redaction (half a line's cost).
  const access = logger.child({}, { redact: [] });
  // One listener shared by every response rather than a closure made per request: 'close'
  // follows 'finish' on every response, and also comes alone when the client left.
  function logLine(this: ServerResponse<Request>) {
    const req = this.req;
    const line = {
      reqId: req.id,
      ...(req.traceId ? { traceId: req.traceId } : {}),
      method: req.method,
      path: loggablePath(req.originalUrl),
      status: this.statusCode,
      responseTime: elapsedMs(req),
    };
    if (!this.writableFinished) access.warn(line, 'request aborted');
    else if (this.statusCode >= 500) access.error(line, 'request failed');
    else access.info(line, 'request completed');
  }
  return (req, res) => {
    req[STARTED] = performance.now();
    req.id = randomUUID();
    req.traceId = traceIdOf(req.headers.traceparent);
    res.setHeader('X-Request-Id', req.id);
    res.on('close', logLine);
    app(req, res);
  };
}
