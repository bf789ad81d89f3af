import { defaultChoices, TEAM_NOTIFICATIONS, type TeamChoices, type TeamNotification } from '../domain/team-notifications';
import { type Db, inTransaction, type Tx } from './db';
import type { Role } from './schema';

// A member's choice of the team's emails, per environment: one row once they choose,
// the role's default before (domain/team-notifications.ts).

export interface Recipient {
  userId: string;
  email: string;
  /** The language the member chose in; null: never chose. */
  language: string | null;
}

const choicesOf = (row: Record<TeamNotification, number>): TeamChoices =>
  Object.fromEntries(TEAM_NOTIFICATIONS.map((k) => [k, row[k] === 1])) as TeamChoices;

/** The member's choices in the environment, or their role's default. */
export async function choicesFor(db: Db, userId: string, environmentId: string, role: Role): Promise<TeamChoices> {
  const row = await db.selectFrom('notification_preferences').selectAll().where('user_id', '=', userId).where('environment_id', '=', environmentId).executeTakeFirst();
  return row ? choicesOf(row) : defaultChoices(role);
}

export async function setChoices(db: Db, p: { userId: string; environmentId: string; choices: TeamChoices; language: string; now: Date }): Promise<void> {
  const values = { dispute_opened: Number(p.choices.dispute_opened), payout_failed: Number(p.choices.payout_failed), endpoint_failing: Number(p.choices.endpoint_failing), language: p.language, updated_at: p.now.toISOString() };
  await inTransaction(db, (trx) =>
    trx
      .insertInto('notification_preferences')
      .values({ user_id: p.userId, environment_id: p.environmentId, ...values })
      .onConflict((oc) => oc.columns(['user_id', 'environment_id']).doUpdateSet(values))
      .execute(),
  );
}

/** The environment's members who get `kind`: by their choice, or without one by their role's default. */
export async function recipientsOf(trx: Tx, environmentId: string, kind: TeamNotification): Promise<Recipient[]> {
  const rows = await trx
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .leftJoin('notification_preferences as p', (j) => j.onRef('p.user_id', '=', 'memberships.user_id').onRef('p.environment_id', '=', 'memberships.environment_id'))
    .select(['users.id', 'users.email', 'memberships.role', 'p.language', `p.${kind} as chosen`])
    .where('memberships.environment_id', '=', environmentId)
    .orderBy('users.email')
    .execute();
  return rows
    .filter((r) => (r.chosen === null ? defaultChoices(r.role)[kind] : r.chosen === 1))
    .map((r) => ({ userId: r.id, email: r.email, language: r.language }));
}
