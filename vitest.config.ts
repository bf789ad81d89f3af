import preact from '@preact/preset-vite';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { scratchInMemory } from './test/scratch-in-memory.ts';

scratchInMemory();

// The tiers (test/README.md): `unit` (pure modules and use cases in-process, fake clocks),
// `usecase` (the use cases of server/payments/ and server/commands/ against a fresh real
// database, on SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL; no HTTP), `api`
// (the real server in the test's process over real HTTP on a random port, on both engines
// likewise) and `process` (the service and its CLIs as child processes: kill -9, restarts,
// several processes on one database). The browser tier is Playwright's
// (playwright.config.ts); the whole fault matrix is `npm run test:faults`
// (vitest.faults.config.ts).
//
// The use-case and API tiers run their SQLite halves first (the projects `usecase` and
// `api`, with TEST_DATABASE_URL emptied: the tests `npm run test:quick` runs) and their
// PostgreSQL halves after (`postgres`, with TEST_ENGINES narrowing ENGINES to PostgreSQL,
// test/test-env.ts), so that CI times the quick tier inside npm test rather than running it a
// second time (issue 48). The PostgreSQL half takes the files that can reach PostgreSQL: those
// that name ENGINES or TEST_DATABASE_URL; in them, a suite about SQLite alone or the same on
// either engine runs once, in the SQLite half (`describeWithSqlite`, test/api/harness.ts).
// .ci/summary.mjs times the halves apart and fails a run in which a test ran in both.
const TIERS_ON_BOTH = ['test/usecase', 'test/api'];
const reachesPostgres = TIERS_ON_BOTH.flatMap((folder) =>
  readdirSync(join(import.meta.dirname, folder))
    .filter((name) => name.endsWith('.test.ts') && /\bENGINES\b|TEST_DATABASE_URL/.test(readFileSync(join(import.meta.dirname, folder, name), 'utf8')))
    .map((name) => `${folder}/${name}`),
);

/**
 * The settings of the tiers whose files start services or worlds on real databases (use
 * case, API on each engine, process).
 */
const ON_DATABASES = {
  environment: 'node',
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Two cores: files in parallel beyond two only add contention.
  maxWorkers: 2,
  // Each file starts its own services on fresh databases and shares no state through
  // modules, so a worker keeps the modules it has loaded: the server's module graph is
  // imported once per worker, not once per file (import time, summed over the API tier's
  // files: 167 s isolated, 19 s not, for 40 of them; docs/performance-changelog.md).
  isolate: false,
} as const;

export default defineConfig({
  plugins: [preact()],
  test: {
    // CI sums every suite's JSON report into one "N passed, N failed" line (.ci/summary.mjs).
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'reports/vitest.json' }]] : ['default'],
    // The SDK's generated types and API_VERSION, made if missing (test/sdk-generated.ts).
    // The processes the process tests start, compiled when their sources changed (test/server-bundle.ts).
    globalSetup: ['test/sdk-generated.ts', 'test/server-bundle.ts'],
    // Each project transforms the server's modules on its own; kept on disk
    // (node_modules/.experimental-vitest-cache, keyed by each file's content and the
    // config), the later projects of a run and every later run read them instead:
    // `test:quick` about 109–116 → 102 s once warm, a fresh CI run 2–4 s
    // (docs/performance-changelog.md). `npx vitest --clearCache` empties it.
    experimental: { fsModuleCache: true },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}'],
          environment: 'node',
          // Property tests run thousands of cases; on a shared two-core machine 5 s is not enough.
          testTimeout: 30_000,
          // Vitest's default is one worker fewer than the cores: one, on these machines
          // (30 s alone; 20 s with two, docs/performance-changelog.md).
          maxWorkers: 2,
          // A worker keeps the modules it has loaded, as in the API tier: the tier's wall time
          // 42 → 22 s, most of it imports (docs/performance-changelog.md). The files share no
          // state through modules (each stubs and restores its own globals, fake timers and
          // mocks), and pass in any order (`--sequence.shuffle.files`).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'usecase',
          include: ['test/usecase/**/*.test.ts'],
          env: { TEST_DATABASE_URL: '' },
          // As the API tier's: each file opens its own world on a fresh database.
          ...ON_DATABASES,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/api/**/*.test.ts'],
          env: { TEST_DATABASE_URL: '' },
          ...ON_DATABASES,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          // The use-case and API tiers' tests on PostgreSQL (none without TEST_DATABASE_URL),
          // after both tiers' SQLite halves; the files' settings are those tiers'.
          name: 'postgres',
          include: process.env.TEST_DATABASE_URL ? reachesPostgres : [],
          env: { TEST_ENGINES: 'postgres' },
          ...ON_DATABASES,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          ...ON_DATABASES,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
