import { sql } from 'kysely';
import type { Db } from './db';

// Webhook endpoints in a failing spell: every delivery attempt since their last success (or
// ever) failed, the first of them at least a day ago, and their team not yet told of this
// spell. An endpoint remembers the start of the spell it was mailed about
// (`failing_mailed_for`): a success starts the next spell later, so that one mails again.
// The mark is written by webhook-endpoints.ts (markSpellMailed), the endpoints' one writer.

export interface FailingSpell {
  id: string;
  environmentId: string;
  url: string;
  /** The spell's first failed attempt. */
  since: string;
}

/** Enabled endpoints whose spell began at or before `cutoff` and was not mailed yet, oldest first. */
export async function unmailedSpells(db: Db, cutoff: Date, limit: number): Promise<FailingSpell[]> {
  const since = sql<string>`min(a.created_at)`;
  const rows = await db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('event_deliveries as d', 'd.endpoint_id', 'e.id')
    .innerJoin('delivery_attempts as a', 'a.delivery_id', 'd.id')
    .select(['e.id', 'e.environment_id', 'e.url', since.as('since')])
    .where('e.enabled', '=', 1)
    .where('a.result', '!=', 'delivered')
    .where((eb) => eb.or([eb('e.last_delivered_at', 'is', null), eb('a.created_at', '>', eb.ref('e.last_delivered_at'))]))
    .groupBy(['e.id', 'e.environment_id', 'e.url', 'e.failing_mailed_for'])
    .having(since, '<=', cutoff.toISOString())
    .having((eb) => eb.or([eb('e.failing_mailed_for', 'is', null), eb('e.failing_mailed_for', '<', since)]))
    .orderBy(since)
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, environmentId: r.environment_id, url: r.url, since: r.since }));
}
