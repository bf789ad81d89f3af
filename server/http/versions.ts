import type { RequestHandler } from 'express';
import { ApiError } from './problem';

// API versions are named by the date they were released. A request names the one it was
// written against with `Payment-Service-Version`; none means the current one. Every answer
// says which version it was made by. docs/changelog.md lists what each version changed; an
// incompatible change needs a new version (test/openapi/check-compatible.ts checks the document).

/** Oldest first; the last is the current one. */
export const API_VERSIONS = ['2026-11-25'] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

export const CURRENT_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

export const VERSION_HEADER = 'Payment-Service-Version';

const isKnown = (value: string): value is ApiVersion => (API_VERSIONS as readonly string[]).includes(value);

/** Reads the header, echoes the version in the answer, and refuses an unknown one (400 naming the known ones). */
export const apiVersion: RequestHandler = (req, res, next) => {
  const asked = req.get(VERSION_HEADER);
  if (asked !== undefined && !isKnown(asked)) {
    res.set(VERSION_HEADER, CURRENT_VERSION);
    const message = `is not a version of the API; known versions: ${API_VERSIONS.join(', ')}`;
    throw new ApiError('invalid_request', `${VERSION_HEADER} ${JSON.stringify(asked.slice(0, 40))} ${message}`, [
      { path: `header.${VERSION_HEADER}`, message },
    ]);
  }
  res.set(VERSION_HEADER, asked ?? CURRENT_VERSION);
  next();
};
