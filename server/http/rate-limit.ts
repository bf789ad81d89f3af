import type { RequestHandler, Response } from 'express';
import type { RateDecision, RatePolicy } from '../domain/rate-limit';
import type { Deps } from '../deps';
import { ApiError } from './problem';

// The API's limit: API_RATE_LIMIT requests per second per environment (its key pair), or
// the environment's own `rate_limit` (keys CLI). Every answer past authentication says
// where the caller stands, in the RateLimit fields of draft-ietf-httpapi-ratelimit-headers:
// `RateLimit-Policy: "api";q=100;w=1` and `RateLimit: "api";r=<left>;t=<seconds to full>`.

const API_WINDOW_MS = 1000;

function apiPolicy(deps: Pick<Deps, 'config'>, environmentLimit: number | null): RatePolicy {
  return { name: 'api', limit: environmentLimit ?? deps.config.apiRateLimit, windowMs: API_WINDOW_MS };
}

/** The RateLimit and RateLimit-Policy fields, and Retry-After when refused. */
export function setRateLimitHeaders(res: Response, policy: RatePolicy, d: RateDecision): void {
  res.setHeader('RateLimit-Policy', `"${policy.name}";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`);
  res.setHeader('RateLimit', `"${policy.name}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`);
  if (!d.allowed) res.setHeader('Retry-After', String(retryAfterSeconds(d)));
}

/** Whole seconds, at least 1: a client told 0 would retry at once. */
export const retryAfterSeconds = (d: RateDecision): number => Math.max(1, Math.ceil(d.retryAfterMs / 1000));

/** After requireAppKeys: one token of the environment's bucket per request, or a 429. */
export function apiRateLimit(deps: Pick<Deps, 'config' | 'limiter' | 'now'>): RequestHandler {
  return async (req, res, next) => {
    const env = req.environment!;
    const policy = apiPolicy(deps, env.rate_limit);
    const d = await deps.limiter.take(`api:${env.id}`, policy, deps.now());
    setRateLimitHeaders(res, policy, d);
    if (!d.allowed) {
      throw new ApiError('rate_limited', `More than ${policy.limit} requests per second for this environment; retry after ${retryAfterSeconds(d)} s`);
    }
    next();
  };
}
