import { uuidv7 } from '../domain/ids';
import { queueTrialReminder } from '../notify/mail-content';
import type { Db } from '../store/db';
import { claimTrialReminders } from '../store/mails';

const DAY_MS = 24 * 60 * 60_000;

/**
 * One round of trial reminders: every trialing subscription whose first charge comes within
 * `days` gets one email saying when and how much, and how to avoid it (card schemes ask
 * for it before a free trial turns into a paid subscription). A trial shorter than `days`
 * is reminded as soon as it starts: the sign-up's confirmation says the same, but the
 * reminder is the one the schemes name.
 */
export function remindTrials(db: Db, now: Date, days: number, batch: number): Promise<number> {
  return claimTrialReminders(db, {
    now,
    until: new Date(now.getTime() + days * DAY_MS),
    limit: batch,
    queue: (trx, id) => queueTrialReminder(trx, id, uuidv7(now.getTime()), now),
  });
}
