import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';

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

/** One line per request: method, path without query or token, status, time. No headers, no bodies. */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: loggablePath(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
