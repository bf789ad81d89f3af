import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The clock of a service run as its own process (server/clock.ts, TEST_CLOCK_FILE): real
 * time plus the offset the test sets, 0 to begin with, in a file the test chooses; or
 * stopped at an instant (`stand`) until the next `set`. For the process tier
 * (test/api/process.ts `testClock`) and the browser tier alike, so it imports nothing of
 * Vitest. Written aside and renamed, so the service never reads half a number.
 */
export function serviceClock(dir: string): { env: { TEST_CLOCK_FILE: string }; set(offsetMs: number): void; stand(atMs: number): void } {
  const file = join(dir, 'clock');
  const write = (text: string) => {
    writeFileSync(`${file}.next`, text);
    renameSync(`${file}.next`, file);
  };
  const set = (offsetMs: number) => write(String(offsetMs));
  set(0);
  return { env: { TEST_CLOCK_FILE: file }, set, stand: (atMs) => write(`=${atMs}`) };
}
