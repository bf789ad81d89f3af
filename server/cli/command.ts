import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../config';

// What a command-line tool (npm run keys, npm run users) is, apart from the process it runs
// in: the command reads its arguments and environment from `CliIo` and writes through it,
// and says "wrong command" or "refused" by throwing, so it runs the same in its own process
// and inside a test's, and its database is closed on every way out.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The environment the configuration is read from (loadConfig). */
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** Printed after the message of a wrong command. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<void>;
}

/** How a command ended other than well: 2, a wrong command (the usage follows); 3, a rule said no and nothing changed. */
export class CliExit extends Error {
  constructor(
    readonly code: 2 | 3,
    message: string,
  ) {
    super(message);
  }
}

/** A wrong command: exit 2, the usage printed after the message. */
export function wrong(message: string): never {
  throw new CliExit(2, message);
}

/** A rule said no and nothing changed: exit 3, apart from a wrong command's 2, so a script can tell. */
export function refused(message: string): never {
  throw new CliExit(3, message);
}

/** The options given, or a wrong command for an unknown option or a missing value (parseArgs's own words). */
export function parsedArgs<const T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: T }>> {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (err) {
    return wrong((err as Error).message);
  }
}

/** Runs `command`: its exit code, 0 when it ended well; a wrong or refused command says why on stderr. */
export async function runCommand(command: Command, argv: string[], io: CliIo): Promise<number> {
  // Asked for, the usage is an answer: on stdout, exit 0.
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    await command.run(argv, io);
    return 0;
  } catch (err) {
    // A variable the tools cannot run with is said in words, not a stack (exit 2, as a wrong value).
    if (err instanceof ConfigError) {
      io.stderr(`${err.message}\n`);
      return 2;
    }
    if (!(err instanceof CliExit)) throw err;
    io.stderr(err.code === 2 ? `${err.message}\n\n${command.usage}\n` : `${err.message}\n`);
    return err.code;
  }
}

/** Runs `command` as this process: its arguments, environment and streams, its exit code. */
export async function runAsProcess(command: Command): Promise<void> {
  const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), env: process.env };
  process.exitCode = await runCommand(command, process.argv.slice(2), io);
}
