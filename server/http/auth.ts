import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import type { AuthenticatedEnvironment } from '../store/api-keys';
import { createKeyChecks } from '../store/key-checks';
import { ApiError } from './problem';

declare module 'express-serve-static-core' {
  interface Request {
    environment?: AuthenticatedEnvironment;
    /** The public key of the pair that opened the request (the request log names it; never the secret). */
    appKey?: string;
  }
}

const HEADER = /^AppKeys ([A-Za-z0-9_-]{1,128}):([A-Za-z0-9_-]{1,256})$/;
/** The scheme with a pair one or both of whose keys are empty: what unset shell variables make. */
const EMPTY_PAIR = /^AppKeys\s*(?:([^:\s]*):([^:\s]*))?\s*$/;

const USAGE = 'Send Authorization: AppKeys <public_key>:<secret_key>';

/**
 * Why a request without a usable pair is refused, as far as its header alone tells: an
 * absent header or an empty key (an unset $PUBLIC_KEY or $SECRET_KEY) is named, since
 * saying so reveals nothing; a pair that does not open an environment gets one answer,
 * whichever part is wrong.
 */
function refusal(header: string | undefined): string {
  if (!header) return `No Authorization header. ${USAGE}`;
  const [, publicKey, secretKey] = EMPTY_PAIR.exec(header) ?? ['', 'given', 'given'];
  if (!publicKey || !secretKey) {
    const missing = [!publicKey && 'public key', !secretKey && 'secret key'].filter(Boolean).join(' and ');
    return `The AppKeys value is missing its ${missing} (were PUBLIC_KEY and SECRET_KEY exported?). ${USAGE}`;
  }
  return `${USAGE} with a valid key pair`;
}

/** `Authorization: AppKeys <public>:<secret>`; every pair that opens nothing gets the same 401 body. */
export function requireAppKeys(deps: Pick<Deps, 'database' | 'now'>): RequestHandler {
  const check = createKeyChecks(deps.database.db);
  return async (req, _res, next) => {
    const header = req.get('authorization');
    const match = HEADER.exec(header ?? '');
    const env = match ? await check(match[1]!, match[2]!, deps.now()) : null;
    if (!env) throw new ApiError('unauthorized', refusal(header));
    req.environment = env;
    req.appKey = match![1]!;
    next();
  };
}
