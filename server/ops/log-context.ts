import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a log line is part of: the request being answered (its id, and the caller's W3C
 * trace if it sent one) or the job round being run. Use cases log through the process's
 * one logger and never see the request; the logger's mixin (http/logging.ts) adds this to
 * every line written while the work runs, through awaits and callbacks alike.
 */
export type LogContext = { reqId: string; traceId?: string } | { job: string; round: string };

const current = new AsyncLocalStorage<LogContext>();

/** Runs `work` with every line it logs, directly or through what it calls, marked with `context`. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return current.run(context, work);
}

/** The fields of the work under way, for a log line: a fresh object (pino merges into it). */
export function logContextFields(): Partial<Record<'reqId' | 'traceId' | 'job' | 'round', string>> {
  const context = current.getStore();
  return context ? { ...context } : {};
}
