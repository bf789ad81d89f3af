import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { AuditRow } from './schema';

// The dashboard's audit log: every sign-in, failure and action, who, what, when, from where.

export interface AuditEntry {
  environmentId: string | null;
  userId: string | null;
  email: string | null;
  action: string;
  detail?: Record<string, string | number | boolean | null>;
  ip: string | null;
}

export async function recordAudit(db: Db, entry: AuditEntry, now: Date): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: uuidv7(now.getTime()),
      environment_id: entry.environmentId,
      user_id: entry.userId,
      email: entry.email,
      action: entry.action,
      detail: entry.detail ? JSON.stringify(entry.detail) : null,
      ip: entry.ip,
      created_at: now.toISOString(),
    })
    .execute();
}

/**
 * Who made a change: a dashboard member (id, email, address), an API key (no user; its id and
 * label in `detail`).
 */
export interface Actor {
  userId: string | null;
  email: string | null;
  ip: string | null;
  detail?: Record<string, string>;
}

/** The same change in each environment's log (a pair's shared setting, a pairing), in the caller's transaction. */
export async function recordAuditEach(db: Db, environmentIds: readonly string[], by: Actor, action: string, detail: AuditEntry['detail'], now: Date): Promise<void> {
  for (const environmentId of environmentIds) {
    await recordAudit(db, { environmentId, userId: by.userId, email: by.email, ip: by.ip, action, detail: { ...by.detail, ...detail } }, now);
  }
}

/**
 * An environment's log, newest first: what was done in it, and the sign-ins and failures of
 * its members (those carry no environment).
 */
export interface AuditFilters {
  action?: string;
  email?: string;
  /** Moments (ISO 8601 UTC): from `since` included to `until` excluded (the dashboard's days in the shop's time zone). */
  since?: string;
  until?: string;
}

export function auditOf(db: Db, environmentId: string, opts: { limit: number; offset: number } & AuditFilters): Promise<AuditRow[]> {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('environment_id', '=', environmentId),
        eb.and([
          eb('environment_id', 'is', null),
          eb('user_id', 'in', eb.selectFrom('memberships').select('user_id').where('environment_id', '=', environmentId)),
        ]),
      ]),
    );
  if (opts.action) query = query.where('action', '=', opts.action);
  if (opts.email) query = query.where('email', '=', opts.email);
  if (opts.since) query = query.where('created_at', '>=', opts.since);
  if (opts.until) query = query.where('created_at', '<', opts.until);
  // OFFSET only past the first page, as pageOf (paging.ts) says why.
  return query.orderBy('id', 'desc').limit(opts.limit).$if(opts.offset > 0, (q) => q.offset(opts.offset)).execute();
}
