import { readFileSync } from 'node:fs';

/**
 * The service's clock when TEST_CLOCK_FILE is set: real time shifted by the number of
 * milliseconds written in that file, read on every call, so a test moves the clock of
 * service processes it started by rewriting the file; or, written `=` and an epoch in
 * milliseconds, that instant, standing still (a test that must not let a restart's real
 * time count). Never set in production.
 */
export function fileClock(path: string): () => Date {
  return () => {
    const text = readFileSync(path, 'utf8');
    if (text.startsWith('=')) return new Date(Number(text.slice(1)));
    return new Date(Date.now() + (Number(text) || 0));
  };
}
