import { statfsSync } from 'node:fs';

const MEMORY = '/dev/shm';
/** Room enough for a whole run's data folders, databases and browser profiles, with Chromium's own shared memory beside them. */
const NEEDED_BYTES = 2 * 1024 ** 3;

/**
 * The test runners' scratch files (`os.tmpdir()`: data folders, SQLite databases, the
 * clusters some tests build, browser profiles) in memory, when the machine has the room
 * and nobody chose a TMPDIR. Every SQLite commit fsyncs (`synchronous = FULL`), and on
 * these machines' disk that was a tenth of the API tier's time on SQLite
 * (docs/performance.md, "The test suites' time"). No test tells the two apart: a killed
 * process's writes are in the page cache on either, and only a power cut would lose them.
 * Set in each runner's config, before its workers start: they and every process the tests
 * start inherit it.
 */
export function scratchInMemory(): void {
  if (process.env.TMPDIR) return;
  try {
    const { bavail, bsize } = statfsSync(MEMORY);
    if (bavail * bsize >= NEEDED_BYTES) process.env.TMPDIR = MEMORY;
  } catch {
    // No /dev/shm (macOS, some containers): the system's temporary folder, as before.
  }
}
