import type { Deps } from '../deps';
import { purgeSettledCalls } from '../store/gateway-calls';
import { purgeFinishedMails } from '../store/mails';
import { purgeOldEvents } from '../store/events';
import { purgeOldApiRequests } from '../store/api-requests';
import { purgeExpiredKeys } from '../commands/idempotent';

const DAY_MS = 24 * 60 * 60_000;

// What is deleted once it has served its purpose, in batches (a round deletes at most
// `batch` rows of each table, so no statement holds locks for long and the runner goes
// again at once while there is more). Each table's purge is its one writer's (WRITERS in
// eslint.config.js). Timestamps are ISO text on both engines, so they compare as strings.

/**
 * One round of retention: idempotency keys after 24 h (the API's promise), events (but
 * those with a delivery still pending) and customers' emails sent after EVENT_RETENTION_DAYS,
 * settled gateway calls after
 * GATEWAY_CALL_RETENTION_DAYS, the API's request log after REQUEST_LOG_RETENTION_DAYS; at most `batch` rows of each. Resolves with the largest
 * count, so the runner goes again at once while any of them had a full batch.
 */
export async function purgeOld(deps: Pick<Deps, 'database' | 'config'>, now: Date, batch: number): Promise<number> {
  const db = deps.database.db;
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const counts = [
    await purgeExpiredKeys(db, now, batch),
    await purgeOldEvents(db, ago(deps.config.eventRetentionDays * DAY_MS), batch),
    await purgeFinishedMails(db, ago(deps.config.eventRetentionDays * DAY_MS), batch),
    await purgeSettledCalls(db, ago(deps.config.gatewayCallRetentionDays * DAY_MS), batch),
    await purgeOldApiRequests(db, ago(deps.config.requestLogRetentionDays * DAY_MS), batch),
  ];
  return Math.max(...counts);
}
