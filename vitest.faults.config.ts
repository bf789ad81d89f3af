import { defineConfig } from 'vitest/config';
import { scratchInMemory } from './test/scratch-in-memory.ts';

scratchInMemory();

// `npm run test:faults`: the real-process fault matrix (test/faults/), slower than `npm
// test`'s one case per fault kind: every fault kind on every route it covers, per engine.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    // The processes the fault cases start, compiled when their sources changed (test/server-bundle.ts).
    globalSetup: ['test/server-bundle.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
