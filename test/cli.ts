import { type Command, runCommand } from '../server/cli/command';

// The CLIs' commands (server/cli/) run inside the test's process: the same code, arguments,
// database and answers as `npm run keys` / `npm run users` in a process of their own, without
// a process start (0.3–0.8 s each). The process tier keeps tests of the real processes
// (test/process/keys-cli.test.ts): their exit codes, streams and one JSON line.

/** A command that ended with exit code 2 (wrong) or 3 (refused): its code and its stderr, which the message repeats. */
export class CommandFailed extends Error {
  constructor(
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`exit ${code}: ${stderr}`);
  }
}

/** `command` with `args` on the configuration `env` gives: its stdout, or CommandFailed. */
export async function runHere(command: Command, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCommand(command, args, { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env });
  if (code !== 0) throw new CommandFailed(code, stderr);
  return stdout;
}
