import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';

// Runs a process bundle of test/server-bundle.ts (`node launch.cjs <bundle>.js args…`) with
// V8's code cache: the first start of a bundle compiles it and stores the code V8 made,
// functions compiled while it started included; later starts read that instead of compiling
// 7 MB again. A service start to its `listening` line: 920 ms of CPU without, 760 ms with
// (docs/performance-changelog.md). Node 20 caches no ES module's code, hence a script: the
// bundle is the body of an async function (its top-level awaits stay as they are).

const bundle = process.argv[2];
if (!bundle) throw new Error('usage: node launch.cjs <bundle>.js [args…]');
// The bundle reads its arguments as `node <bundle> args…` would give them.
process.argv.splice(1, 2, bundle);
// ASCII, as the build writes it (test/server-bundle.ts), so read one byte a character: as
// UTF-8 the 7 MB took 55–95 ms of a start, 2 ms so. A bundle that is not is read as UTF-8.
const bytes = readFileSync(bundle);
const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
// V8 checks a cache against the source's length, not its text: the cache is named by the
// hash the build wrote on the bundle's first line, so a rebuilt bundle never runs old code.
const hash = /^\/\/ sha256 (\w+)\n/.exec(source)?.[1];
if (!hash) throw new Error(`${bundle} has no hash line: not built by test/server-bundle.ts`);
const cacheFile = `${bundle}.${hash}.v8cache`;
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // not made yet: this start makes it
}
const script = new Script(source, { filename: bundle, cachedData });
const run = script.runInThisContext() as (require: NodeJS.Require, importOutside: (specifier: string) => Promise<unknown>) => Promise<void>;

// Stored once the top level has run (a service is listening by then, a CLI has done its
// work), with the functions compiled so far. Another start may store the same bundle's at
// once: each writes a file of its own, then renames it.
function store(): void {
  const temp = `${cacheFile}.${process.pid}`;
  try {
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, cacheFile);
  } catch {
    // Only a saving: a run that replaced the bundles meanwhile may have removed the folder.
    rmSync(temp, { force: true });
  }
}

// Left unhandled, a failure of the top level ends the process with its error and code 1,
// as an ES module's does.
// The bundle's dynamic imports (test/server-bundle.ts, sourceLocation) are this module's.
const ran = run(createRequire(bundle), (specifier) => import(specifier));
if (!cachedData || script.cachedDataRejected) void ran.then(store);
