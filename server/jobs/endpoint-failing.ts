import { ENDPOINT_FAILING_MS } from '../domain/team-notifications';
import { queueEndpointFailing } from '../notify/mail-team';
import type { Db } from '../store/db';
import type { Outbox } from '../store/events';
import { unmailedSpells } from '../store/failing-endpoints';
import { markSpellMailed } from '../store/webhook-endpoints';

/**
 * One round: each webhook endpoint whose deliveries have all failed for a day gets its
 * team one email per failing spell (docs/dashboard.md "Notifications"); a later round, or
 * another process, finds the spell marked and mails nothing.
 */
export async function mailFailingEndpoints(db: Db, outbox: Outbox, now: Date, batch: number): Promise<number> {
  const spells = await unmailedSpells(db, new Date(now.getTime() - ENDPOINT_FAILING_MS), batch);
  let mailed = 0;
  for (const spell of spells) {
    if (await markSpellMailed(db, spell, (trx) => queueEndpointFailing(trx, spell, outbox.baseUrl(), now))) mailed++;
  }
  return mailed;
}
