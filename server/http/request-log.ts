import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { uuidv7 } from '../domain/ids';
import { insertApiRequests } from '../store/api-requests';
import type { Db } from '../store/db';
import type { ApiRequestRow } from '../store/schema';
import { elapsedMs, loggablePath } from './logging';

// The API's request log (the dashboard's Requests page; docs/dashboard.md "Requests"): a
// row per authenticated /v1/ request, taken when its answer has been sent and written with
// others in one INSERT, off the request's path. A write per request would have put one more
// commit (on SQLite, one more fsync on the one writer) behind every answer; a batch costs
// one commit a second. The price: a process killed with SIGKILL loses the rows of its last
// second; SIGTERM (service.ts, ops/shutdown.ts) writes them before the database closes.

/** A batch is written at least this often while rows wait… */
const FLUSH_MS = 1000;
/** …and at once when this many wait. */
const FLUSH_ROWS = 200;
/** Rows kept while the database refuses them; beyond, new rows are dropped and counted. */
const MAX_WAITING = 20_000;
/** Longer paths are cut: a path is the route and its ids, never kilobytes. */
const MAX_PATH = 1024;

export interface RequestLog {
  /** After requireAppKeys: records the request once its answer is sent. */
  record: RequestHandler;
  /** Writes what waits (tests, and the drain); resolves when it is written or given up. */
  flush(): Promise<void>;
  /** Stops the timer and writes what waits: after the server has closed, before the database does. */
  close(): Promise<void>;
}

export function createRequestLog(deps: { db: Db; log: Logger; now: () => Date }): RequestLog {
  let waiting: ApiRequestRow[] = [];
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    if (!waiting.length) return writing;
    const rows = waiting;
    waiting = [];
    // One batch at a time: the next starts when the one before has been written or refused.
    writing = writing.then(() =>
      insertApiRequests(deps.db, rows).catch((err: unknown) => {
        deps.log.warn({ err, rows: rows.length }, 'request log: a batch could not be written and is dropped');
      }),
    );
    return writing;
  }

  const timer = setInterval(() => {
    if (dropped) deps.log.warn({ dropped }, 'request log: rows dropped while the database was behind');
    dropped = 0;
    void flush();
  }, FLUSH_MS);
  timer.unref();

  // One listener for every response, not a closure per request (logging.ts does the same).
  function finished(this: ServerResponse<Request>) {
    const req = this.req;
    if (waiting.length >= MAX_WAITING) {
      dropped++;
      return;
    }
    const now = deps.now();
    waiting.push({
      id: uuidv7(now.getTime()),
      environment_id: req.environment!.id,
      method: req.method,
      path: loggablePath(req.originalUrl).slice(0, MAX_PATH),
      status: this.statusCode,
      public_key: req.appKey!,
      request_id: req.id,
      idempotency_key: req.headers['idempotency-key'] === undefined ? 0 : 1,
      duration_ms: elapsedMs(req),
      created_at: now.toISOString(),
    });
    if (waiting.length >= FLUSH_ROWS) void flush();
  }

  return {
    record: (_req, res, next) => {
      res.on('finish', finished);
      next();
    },
    flush,
    close: () => {
      clearInterval(timer);
      return flush();
    },
  };
}
