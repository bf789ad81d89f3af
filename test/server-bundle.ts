import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

// The service, its CLIs and the test gateway modules compiled into plain JavaScript once
// per test run, for the tests that start them as processes (test/api/process.ts, the process
// tier, the browser specs' services): `node main.mjs` starts on a third of the CPU of `node
// --import tsx server/main.ts` (0.9–1.0 s against 2.3–2.7 s, `/usr/bin/time` to the
// `listening` line), and the process tests start a few hundred. The same code, only compiled
// ahead, and each module's `import.meta.url` and `import.meta.dirname` keep naming its source
// file, so what it reads beside itself (the SQLite writer, the dashboard's CSS, dist/) is found.

const ROOT = join(import.meta.dirname, '..');
// Inside node_modules, so the bundles' package imports resolve from the project.
const OUT = join(ROOT, 'node_modules', '.cache', 'checkout-processes');

// The test gateway modules the service loads (GATEWAY_MODULES, PAYOUT_MODULE): npm packages
// stay imports.
const GATEWAYS = {
  'remote-gateway': 'test/api/remote-gateway.ts',
  'remote-payouts': 'test/api/remote-payouts.ts',
} as const;
// The service and the CLIs, started a few hundred times a run (each process test's service,
// keysCli, usersCli, the dashboard specs' invitations): their npm packages (express, kysely,
// zod, pg, stripe, qrcode…; not better-sqlite3, a native addon) compiled in too, so that a
// start reads one file instead of resolving and loading some 400 modules. CPU to `listening`
// (or to a `keys list`'s exit), a quiet core: the service 1.1 s instead of 1.6 s, the keys
// CLI 0.77 s instead of 1.16 s (docs/performance-changelog.md).
const PROCESSES = {
  main: 'server/main.ts',
  'keys-cli': 'server/keys-cli.ts',
  'users-cli': 'server/users-cli.ts',
} as const;

/** The compiled file of an entry, for `node` (or GATEWAY_MODULES / PAYOUT_MODULE). */
export const bundled = (entry: keyof typeof GATEWAYS | keyof typeof PROCESSES): string => join(OUT, `${entry}.mjs`);

/**
 * The global setup of vitest and Playwright: compiles every entry (about 0.3 s). Each file
 * replaces the last run's by a rename, so a run already under way (the fault matrix beside
 * `npm test`) never finds one missing or half written.
 */
export default async function buildProcessBundles(): Promise<void> {
  const temp = `${OUT}.${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  const common = {
    outdir: temp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins: [
      {
        name: 'source-location',
        setup(b) {
          b.onLoad({ filter: /\.tsx?$/ }, ({ path }) => ({
            contents: readFileSync(path, 'utf8')
              .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
              .replaceAll('import.meta.dirname', JSON.stringify(dirname(path))),
            loader: path.endsWith('.tsx') ? 'tsx' : 'ts',
          }));
        },
      },
    ],
  } satisfies BuildOptions;
  const entries = (group: Record<string, string>) => Object.fromEntries(Object.entries(group).map(([name, file]) => [name, join(ROOT, file)]));
  await Promise.all([
    build({ ...common, entryPoints: entries(GATEWAYS), packages: 'external' }),
    build({
      ...common,
      entryPoints: entries(PROCESSES),
      // pg asks for pg-native only when told to; better-sqlite3 loads its compiled addon.
      external: ['better-sqlite3', 'pg-native'],
      // The CommonJS packages compiled in call require() for Node's own modules.
      banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
    }),
  ]);
  mkdirSync(OUT, { recursive: true });
  for (const file of readdirSync(temp)) renameSync(join(temp, file), join(OUT, file));
  rmSync(temp, { recursive: true, force: true });
}
