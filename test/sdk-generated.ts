import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Vitest's global setup: the SDK (packages/sdk) imports its generated files (the types and
// API_VERSION, made from the OpenAPI document), which a fresh clone does not have until
// `npm run typecheck` (its pretypecheck) or `npm run generate -w @checkout/sdk` makes them.
// `npm test` regenerates them before its type check; a test run on its own makes them only
// when they are missing.

export default function generateSdkTypes(): void {
  const sdk = join(import.meta.dirname, '..', 'packages', 'sdk');
  if (['api.ts', 'version.ts', 'resources.ts'].every((f) => existsSync(join(sdk, 'src', 'generated', f)))) return;
  execFileSync(process.execPath, [join(sdk, 'scripts', 'generate.mjs')], { stdio: 'inherit' });
}
