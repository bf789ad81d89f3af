import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The project as it was at a git revision, in a worktree of its own in the temporary
// directory (outside the tree, so no linter or test runner finds a second copy of the
// project), installed and built once and reused by later runs: the baseline of the
// money-paths comparison and of the end-to-end payment's (`--payment-baseline`). Needs the
// repository's history (a shallow clone may not hold the revision: the section then says so).

const ROOT = new URL('../../', import.meta.url).pathname;

export function baselineCheckout(rev: string, progress: (line: string) => void): string {
  const dir = join(tmpdir(), `checkout-bench-baseline-${rev}`);
  const run = (command: string, args: string[], cwd: string) =>
    execFileSync(command, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
      // better-sqlite3 compiles from source on these machines, against the installed Node's headers.
      env: { ...process.env, ...(existsSync('/usr/include/node/node.h') ? { npm_config_nodedir: '/usr' } : {}) },
    });
  if (!existsSync(join(dir, 'package.json'))) {
    progress(`baseline: checking out ${rev} into ${dir}`);
    run('git', ['worktree', 'add', '--force', '--detach', dir, rev], ROOT);
  }
  if (!existsSync(join(dir, 'node_modules'))) {
    progress(`baseline: installing ${rev}'s packages (once; a few minutes)`);
    run('npm', ['ci', '--no-audit', '--no-fund'], dir);
  }
  if (!existsSync(join(dir, 'dist'))) {
    progress(`baseline: building ${rev}`);
    run('npm', ['run', 'build'], dir);
  }
  return dir;
}
