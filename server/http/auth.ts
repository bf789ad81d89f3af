import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import type { AuthenticatedEnvironment } from '../store/api-keys';
import { createKeyChecks } from '../store/key-checks';
import { ApiError } from './problem';

declare module 'express-serve-static-core' {
  interface Request {
    environment?: AuthenticatedEnvironment;
  }
}

const HEADER = /^AppKeys ([A-Za-z0-9_-]{1,128}):([A-Za-z0-9_-]{1,256})$/;

/** `Authorization: AppKeys <public>:<secret>`; every failure gets the same 401 body. */
export function requireAppKeys(deps: Pick<Deps, 'database' | 'now'>): RequestHandler {
  const check = createKeyChecks(deps.database.db);
  return async (req, _res, next) => {
    const match = HEADER.exec(req.get('authorization') ?? '');
    const env = match ? await check(match[1]!, match[2]!, deps.now()) : null;
    if (!env) {
      throw new ApiError(
        'unauthorized',
        'Send Authorization: AppKeys <public_key>:<secret_key> with a valid key pair',
      );
    }
    req.environment = env;
    next();
  };
}
