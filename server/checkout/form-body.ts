import express, { type Request, type RequestHandler } from 'express';
import { bodyFailureStatus, jsonBody } from '../http/body';

// The checkout's forms: urlencoded without JavaScript, JSON from the hydrated screen, 16 KiB
// at most. A body that cannot be read (malformed JSON, a JSON null, too large, an unknown
// charset or Content-Encoding) is not an error for the app's handler (a 500): the route
// answers it on the page, with the status it deserves.

const LIMIT = '16kb';
const failures = new WeakMap<Request, 400 | 413 | 415>();

export function formBody({ json }: { json: boolean }): RequestHandler {
  const parsers = [express.urlencoded({ limit: LIMIT, extended: false }), ...(json ? [jsonBody({ limit: LIMIT })] : [])];
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown) => {
      if (err) {
        failures.set(req, bodyFailureStatus(err));
        return next();
      }
      const parser = parsers[i++];
      if (!parser) return next();
      parser(req, res, step);
    };
    step();
  };
}

/** The status of this request's unreadable body, or undefined when it was read. */
export function formBodyFailure(req: Request): 400 | 413 | 415 | undefined {
  return failures.get(req);
}
