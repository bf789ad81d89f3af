import { uuidv7 } from '../domain/ids';
import { type Db, Rollback, rollbackOn } from './db';
import type { DashboardSessionRow, EnvironmentMode, InviteRow, MembershipRow, Role, UserRow } from './schema';

// Dashboard accounts: users, their roles per environment, one-time invites and sessions.
// Tokens arrive here already hashed: the store never sees a usable secret.

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
}

export function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user with this email, created (without a password) if there is none. */
export async function ensureUser(db: Db, email: string, now: Date): Promise<UserRow> {
  const normalised = normaliseEmail(email);
  await db
    .insertInto('users')
    .values({ id: uuidv7(now.getTime()), email: normalised, password_hash: null, created_at: now.toISOString() })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  return db.selectFrom('users').selectAll().where('email', '=', normalised).executeTakeFirstOrThrow();
}

export async function setPasswordHash(db: Db, userId: string, hash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
}

export interface Membership extends MembershipRow {
  environment_name: string;
  environment_mode: EnvironmentMode;
  environment_time_zone?: string;
  /** The environment's pair (store/environment-pairs.ts): the header's test/live switch. */
  environment_pair_id?: string | null;
}

/** The environments a user belongs to, with their names, oldest membership first. */
export function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('environments', 'environments.id', 'memberships.environment_id')
    .select(['memberships.user_id', 'memberships.environment_id', 'memberships.role', 'memberships.created_at', 'environments.name as environment_name', 'environments.mode as environment_mode', 'environments.time_zone as environment_time_zone', 'environments.pair_id as environment_pair_id'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('memberships.environment_id')
    .execute();
}

/** The members of an environment, for its owners' list. */
export function membersOf(db: Db, environmentId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'memberships.role', 'memberships.created_at'])
    .where('memberships.environment_id', '=', environmentId)
    .orderBy('users.email')
    .execute();
}

export async function createInvite(db: Db, invite: Omit<InviteRow, 'used_at' | 'created_at'>, now: Date): Promise<void> {
  await db
    .insertInto('invites')
    .values({ ...invite, used_at: null, created_at: now.toISOString() })
    .execute();
}

export interface OpenInvite extends InviteRow {
  email: string;
  has_password: boolean;
}

/** An unused, unexpired invite with its user's email. */
export async function findOpenInvite(db: Db, tokenHash: string, now: Date): Promise<OpenInvite | undefined> {
  const row = await db
    .selectFrom('invites')
    .innerJoin('users', 'users.id', 'invites.user_id')
    .selectAll('invites')
    .select(['users.email', 'users.password_hash'])
    .where('invites.token_hash', '=', tokenHash)
    .where('invites.used_at', 'is', null)
    .where('invites.expires_at', '>', now.toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  const { password_hash, ...invite } = row;
  return { ...invite, has_password: password_hash !== null };
}

/**
 * Uses an invite once: marks it used (a conditional write, so two clicks cannot both use
 * it), sets the first password when one is given (only while the account has none: a
 * password set meanwhile must be confirmed instead) and grants the role, all in one
 * transaction. false when the invite was already used or has expired, or the account
 * has a password now.
 */
export function acceptInvite(db: Db, tokenHash: string, passwordHash: string | null, now: Date): Promise<boolean> {
  return rollbackOn(db, async (trx) => {
    const at = now.toISOString();
    const used = await trx
      .updateTable('invites')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .returning(['user_id', 'environment_id', 'role'])
      .executeTakeFirst();
    if (!used) return false;
    if (passwordHash) {
      const set = await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', used.user_id).where('password_hash', 'is', null).executeTakeFirst();
      if (Number(set.numUpdatedRows) !== 1) throw new Rollback(false);
    }
    // The account's other open invites to this environment (the emailed link beside the
    // one shown on screen) have nothing left to do.
    await trx.updateTable('invites').set({ used_at: at }).where('user_id', '=', used.user_id).where('environment_id', '=', used.environment_id).where('used_at', 'is', null).execute();
    await trx
      .insertInto('memberships')
      .values({ user_id: used.user_id, environment_id: used.environment_id, role: used.role, created_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'environment_id']).doUpdateSet({ role: used.role }))
      .execute();
    return true;
  });
}

export interface SessionUser {
  session: DashboardSessionRow;
  user: UserRow;
}

export async function createSession(db: Db, row: DashboardSessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

export async function findSession(db: Db, idHash: string): Promise<SessionUser | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions')
    .innerJoin('users', 'users.id', 'dashboard_sessions.user_id')
    .selectAll('dashboard_sessions')
    .select(['users.email', 'users.password_hash', 'users.created_at as user_created_at'])
    .where('dashboard_sessions.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { email, password_hash, user_created_at, ...session } = row;
  return { session, user: { id: session.user_id, email, password_hash, created_at: user_created_at } };
}

export async function updateSession(db: Db, idHash: string, patch: Partial<Pick<DashboardSessionRow, 'last_seen_at' | 'environment_id'>>): Promise<void> {
  await db.updateTable('dashboard_sessions').set(patch).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

/** Every session of the user but `keepIdHash` (the one asking): signed out on every other device. */
export async function deleteOtherSessionsOf(db: Db, userId: string, keepIdHash: string): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).where('id_hash', '!=', keepIdHash).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sign out everywhere: every session of the user, on every device. */
export async function deleteSessionsOf(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const ROLES: readonly Role[] = ['viewer', 'admin', 'owner'];

/** Whether `role` includes what `needed` may do (owner ⊇ admin ⊇ viewer). */
export const roleAtLeast = (role: Role, needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed);
