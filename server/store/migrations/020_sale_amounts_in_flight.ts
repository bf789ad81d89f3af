import { type Kysely, type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db: Kysely<any>) {
    // Amounts move only from confirmed states: a capture / refund / void is reserved into
    // an in-flight amount of its own until its gateway call is confirmed (domain/sales.ts).
    for (const column of ['capturing', 'refunding', 'voiding']) {
      await db.schema.alterTable('sales').addColumn(column, d.int, (c) => c.notNull().defaultTo(0)).execute();
    }
    // Until now a reservation moved the confirmed amount at once: an action whose call is
    // still pending moves back to in flight, so its record (or release) finds it there.
    const moves = { capture: ['captured', 'capturing'], refund: ['refunded', 'refunding'], void: ['voided', 'voiding'] } as const;
    const pending = await db
      .selectFrom('gateway_calls')
      .select(['subject_id', 'kind', 'amount'])
      .where('state', '=', 'pending')
      .where('kind', 'in', Object.keys(moves))
      .execute();
    for (const call of pending as { subject_id: string; kind: keyof typeof moves; amount: number }[]) {
      const [done, flight] = moves[call.kind];
      await db
        .updateTable('sales')
        .set({ [done]: sql`${sql.ref(done)} - ${call.amount}`, [flight]: sql`${sql.ref(flight)} + ${call.amount}` })
        .where('id', '=', call.subject_id)
        .execute();
    }
  },
});
