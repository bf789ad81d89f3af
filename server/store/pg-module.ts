import { createRequire } from 'node:module';
import type Pg from 'pg';

// pg, loaded when PostgreSQL is first used rather than by every process: on Node 20 its
// import builds a `Response` to tell whether it runs in Cloudflare Workers, which loads
// undici's fetch, 35–40 ms of every start on SQLite, a CLI's included (docs/performance-changelog.md).
let loaded: typeof Pg | undefined;

export function pgModule(): typeof Pg {
  if (loaded) return loaded;
  loaded = createRequire(import.meta.url)('pg') as typeof Pg;
  // int8 comes back from pg as a string; amounts are bounded far below 2^53 by validation,
  // so a Number is exact.
  loaded.types.setTypeParser(loaded.types.builtins.INT8, (v) => Number(v));
  return loaded;
}
