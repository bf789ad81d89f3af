import { readFileSync } from 'node:fs';

/**
 * The service's clock when TEST_CLOCK_FILE is set: real time shifted by the number of
 * milliseconds written in that file, read on every call, so a test moves the clock of
 * service processes it started by rewriting the file. Never set in production.
 */
export function fileClock(path: string): () => Date {
  return () => new Date(Date.now() + (Number(readFileSync(path, 'utf8')) || 0));
}
