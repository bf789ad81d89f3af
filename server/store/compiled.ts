import { randomUUID } from 'node:crypto';
import { type Compilable, type CompiledQuery, createQueryId } from 'kysely';
import type { Db } from './db';

/**
 * A hot query, built and compiled once per engine, then run with new arguments. Kysely
 * otherwise rebuilds the query tree and recompiles its SQL on every call, which costs more
 * than SQLite takes to answer a lookup by a unique key. `build` must pass each argument
 * into the query as a bound value, unchanged (checked on the first call).
 */
export function compiledOnce<A extends string[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const perEngine = new Map<unknown, { compiled: CompiledQuery<R>; slots: ({ arg: number } | { value: unknown })[] }>();
  return async (db: Db, ...args: A): Promise<R[]> => {
    const engine = db.getExecutor().adapter.constructor;
    let entry = perEngine.get(engine);
    if (!entry) {
      // Random stand-ins, so no constant in the query can be mistaken for an argument.
      const marks = args.map(() => randomUUID()) as A;
      const compiled = build(db, ...marks).compile();
      const slots = compiled.parameters.map((value) => {
        const arg = marks.indexOf(value as string);
        return arg >= 0 ? { arg } : { value };
      });
      const bound = (mark: string) => compiled.parameters.includes(mark) && !compiled.sql.includes(mark);
      if (!marks.every(bound)) throw new Error('every argument must be a bound value of the query, and only that');
      entry = { compiled, slots };
      perEngine.set(engine, entry);
    }
    const parameters = entry.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    const { rows } = await db.executeQuery<R>({ ...entry.compiled, parameters, queryId: createQueryId() });
    return rows;
  };
}
