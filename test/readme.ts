import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

// The fenced code blocks of README.md (or of another Markdown file of the repository, by its
// path from the root), by their language, in order: the tests run or type-check them as a
// reader copies them (test/process/readme.test.ts, test/process/sdk-readme.test.ts,
// test/e2e/widget.spec.ts).

function readmeBlocks(language: string, file = 'README.md'): string[] {
  const readme = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  return [...readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(([, lang]) => lang === language).map(([, , body]) => body!);
}

/** The one block of a language that contains `marker`; throws unless there is exactly one. */
export function readmeBlock(language: string, marker: string, file = 'README.md'): string {
  const found = readmeBlocks(language, file).filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${file} has ${found.length} \`${language}\` blocks with ${JSON.stringify(marker)}`);
  return found[0]!;
}

export interface SnippetServer {
  /** The origin it listens on, `http://127.0.0.1:<port>`. */
  origin: string;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  stop(): void;
}

/**
 * Runs a server snippet that ends in `.listen(4000);` as a process of its own, on port 0
 * instead (tests never take a fixed port), written to `file`; resolves once it listens.
 * `nodeArgs`: `['--import', 'tsx']` for a TypeScript snippet.
 */
export async function startSnippetServer(code: string, file: string, opts: { env: Record<string, string>; nodeArgs?: string[]; cwd?: string }): Promise<SnippetServer> {
  if (!code.includes('.listen(4000);')) throw new Error('the snippet does not end in .listen(4000);');
  writeFileSync(file, code.replace('.listen(4000);', ".listen(0).on('listening', function () { console.log(`listening ${this.address().port}`); });"));
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), file], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (status) => reject(new Error(`the snippet exited ${status}: ${out}`)));
  });
  return { origin: `http://127.0.0.1:${port}`, output: () => out, stop: () => void child.kill() };
}
