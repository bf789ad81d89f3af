import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import pino, { type Logger } from 'pino';

declare module 'node:http' {
  interface IncomingMessage {
    /** Also sent as X-Request-Id, so a merchant can quote it. */
    id: string;
    /** Lines logged while handling the request carry its id. */
    log: Logger;
  }
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Belt and braces: nothing below logs these, and if something ever does, it is masked.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.secret_key', '*.card_number', '*.card_cvc'],
      censor: '[redacted]',
    },
  });
}

/** The path as logged: checkout tokens are bearer secrets, so they never reach the logs. */
export function loggablePath(url: string): string {
  return url.replace(/^\/pay\/[^/?]+/, '/pay/:token').replace(/\?.*$/, '');
}

/**
 * One line per request when it ends: method, path without query or token, status, time.
 * No headers, no bodies. (pino-http did this with a child logger per request, about a
 * tenth of a payment page's cost; a handler's child is only made when it logs.)
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    const id = randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const summary = () => ({ id, method: req.method, path: loggablePath(req.originalUrl) });
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', { get: () => (child ??= logger.child({ req: summary() })), configurable: true });
    // 'close' follows 'finish' on every response, and also comes alone when the client left.
    res.once('close', () => {
      const line = {
        req: summary(),
        res: { status: res.statusCode },
        responseTime: Math.round(performance.now() - start),
      };
      if (!res.writableFinished) logger.warn(line, 'request aborted');
      else if (res.statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
