import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { z } from 'zod';

// The service, its CLIs and the test gateway modules compiled into plain JavaScript once
// per test run, for the tests that start them as processes (test/api/process.ts, the process
// tier, the browser specs' services): `node main.mjs` starts on a third of the CPU of `node
// --import tsx server/main.ts` (0.9–1.0 s against 2.3–2.7 s, `/usr/bin/time` to the
// `listening` line), and the process tests start a few hundred. The same code, only compiled
// ahead, and each module's `import.meta.url` and `import.meta.dirname` keep naming its source
// file, so what it reads beside itself (the SQLite writer, the dashboard's CSS, dist/) is found.
// The service and the CLIs start through test/process-launch.ts, which keeps V8's code cache
// of them: a start compiles nothing it compiled before.

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

/** The compiled module of a test gateway, for GATEWAY_MODULES / PAYOUT_MODULE. */
export const bundled = (entry: keyof typeof GATEWAYS): string => join(OUT, `${entry}.mjs`);

/** `node`'s arguments that start the service or a CLI, before the process's own. */
export const startArgs = (entry: keyof typeof PROCESSES): string[] => [join(OUT, 'launch.cjs'), join(OUT, `${entry}.js`)];

/**
 * Our sources as they are, but that each module's `import.meta.url` and `import.meta.dirname`
 * name its source file. In a script (`script`), a dynamic import of a computed name (the
 * gateway modules the service is given) calls the launcher's `importOutside`: Node 20 loses
 * a script's import() callback when the script comes from V8's code cache
 * (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Imports of a literal name are compiled in.
 */
function sourceLocation({ script }: { script: boolean }): Plugin {
  return {
    name: 'source-location',
    setup(b) {
      b.onLoad({ filter: /\.tsx?$/ }, ({ path }) => {
        const located = readFileSync(path, 'utf8')
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)));
        return { contents: script ? located.replace(/\bimport\((?!['"])/g, 'importOutside(') : located, loader: path.endsWith('.tsx') ? 'tsx' : 'ts' };
      });
    },
  };
}

/**
 * Node's own modules and the two native packages stay outside the bundle as calls of the
 * launcher's require, not as ES imports: a script has none. Named apart from `require`,
 * whose calls esbuild would resolve into the bundle again.
 */
const required: Plugin = {
  name: 'required',
  setup(b) {
    const names = [...builtinModules, 'better-sqlite3', 'pg-native'].map((name) => name.replace(/[/.-]/g, (c) => `\\${c}`));
    b.onResolve({ filter: new RegExp(`^(node:.*|${names.join('|')})$`) }, ({ path }) => ({ path, namespace: 'required' }));
    b.onLoad({ filter: /.*/, namespace: 'required' }, ({ path }) => ({ contents: `module.exports = requireOutside(${JSON.stringify(path)});`, loader: 'js' }));
  },
};

/**
 * The code with every character outside ASCII written as its `\\u` escape, which means the
 * same in strings, regular expressions, identifiers and comments (esbuild leaves a few in
 * comments and regular expressions). The launcher then reads the bundle one byte a
 * character: 7 MB as UTF-8 took 55–95 ms of a start, as Latin-1 2 ms (test/process-launch.ts).
 */
const ascii = (code: string): string => code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The ES module an entry compiled to, as the body of an async function (so its top-level
 * awaits stay legal) of the launcher's `require` (the CommonJS packages compiled in call it)
 * and `importOutside`, strict as a module is, under a line with its hash, which names its
 * code cache (test/process-launch.ts).
 */
function asScript(code: string): string {
  const body = `(async function (require, importOutside) {\n'use strict';\nconst requireOutside = require;\n${ascii(code)}\n})\n`;
  return `// sha256 ${createHash('sha256').update(body).digest('hex')}\n${body}`;
}

/**
 * What the last build read and when it started (`built.json` in the output folder, written
 * after its files): the bundles are up to date when every file it read is older than that
 * start. Vitest calls its global setup once for the root project and again for each project
 * with files (six times in `npm test`, four in `test:quick`), then Playwright once more, and
 * a build takes 1.4–2.2 s of wall time; a stat of its inputs takes milliseconds.
 */
const RECORD = join(OUT, 'built.json');
const BuiltRecord = z.object({ startedAt: z.number(), inputs: z.array(z.string()), outputs: z.array(z.string()) });
/**
 * A file's modification time comes from the kernel's coarse clock, which may lag
 * `Date.now()` by a few milliseconds: a build counts as started this much earlier, so a file
 * saved as it starts is never taken for older than it.
 */
const CLOCK_MARGIN_MS = 2_000;

/** Whether the build that wrote `record` (beside its outputs) is up to date. */
export function upToDate(record: string): boolean {
  try {
    const { startedAt, inputs, outputs } = BuiltRecord.parse(JSON.parse(readFileSync(record, 'utf8')));
    const files = readdirSync(dirname(record));
    return outputs.every((file) => files.includes(file)) && inputs.every((file) => statSync(file).mtimeMs < startedAt);
  } catch {
    // No record or not one of ours, or an input gone (renamed, deleted): build.
    return false;
  }
}

/**
 * The global setup of vitest and Playwright: compiles every entry (about 0.3 s of esbuild,
 * 1.4–2.2 s in all with the writes) unless the last build is up to date. Each file replaces
 * the last run's by a rename, so a run already under way (the fault matrix beside `npm test`)
 * never finds one missing or half written.
 */
export default async function buildProcessBundles(): Promise<void> {
  if (upToDate(RECORD)) return;
  // Before esbuild reads anything: a file saved during the build counts as newer than it.
  const startedAt = Date.now() - CLOCK_MARGIN_MS;
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
    absWorkingDir: ROOT,
    metafile: true,
    plugins: [sourceLocation({ script: false })],
  } satisfies BuildOptions;
  const entries = (group: Record<string, string>) => Object.fromEntries(Object.entries(group).map(([name, file]) => [name, join(ROOT, file)]));
  const results = await Promise.all([
    build({ ...common, entryPoints: entries(GATEWAYS), packages: 'external' }),
    build({ ...common, entryPoints: entries(PROCESSES), plugins: [sourceLocation({ script: true }), required], write: false }),
    build({ ...common, entryPoints: { launch: join(ROOT, 'test', 'process-launch.ts') }, format: 'cjs', outExtension: { '.js': '.cjs' } }),
  ]);
  mkdirSync(temp, { recursive: true });
  const scripts = results[1].outputFiles.map((file) => ({ name: file.path.replace(/\.mjs$/, '.js'), text: asScript(file.text) }));
  for (const { name, text } of scripts) writeFileSync(name, text);
  mkdirSync(OUT, { recursive: true });
  const built = readdirSync(temp);
  for (const file of built) renameSync(join(temp, file), join(OUT, file));
  rmSync(temp, { recursive: true, force: true });
  // What this build did not make: older bundles and the caches of their code (1–4 MB each).
  const hashes = scripts.map(({ text }) => text.slice('// sha256 '.length, text.indexOf('\n')));
  for (const file of readdirSync(OUT)) {
    if (file !== 'built.json' && !built.includes(file) && !hashes.some((hash) => file.endsWith(`.${hash}.v8cache`))) rmSync(join(OUT, file), { force: true });
  }
  // The files esbuild read (the plugins' namespaces, `required:…`, are not files), and what
  // decides how it compiles them (this module, esbuild itself): a change to any makes them again.
  const read = results.flatMap((result) => Object.keys(result.metafile.inputs)).filter((input) => !/^[a-z-]+:/.test(input));
  const makers = [join(import.meta.dirname, 'server-bundle.ts'), join(ROOT, 'node_modules', 'esbuild', 'package.json')];
  const inputs = [...new Set([...read.map((input) => join(ROOT, input)), ...makers])];
  writeFileSync(RECORD, JSON.stringify({ startedAt, inputs, outputs: built }));
}
