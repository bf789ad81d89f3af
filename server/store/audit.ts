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
 * An environment's log, newest first: what was done in it, and the sign-ins and failures of
 * its members (those carry no environment).
 */
export interface AuditFilters {
  action?: string;
  email?: string;
  /** UTC days, `YYYY-MM-DD`, both included. */
  from?: string;
  to?: string;
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
  if (opts.from) query = query.where('created_at', '>=', `${opts.from}T00:00:00.000Z`);
  // Every moment of the day `to`: stored moments are ISO text, so the next day's midnight bounds it.
  if (opts.to) query = query.where('created_at', '<', nextDay(opts.to));
  return query.orderBy('id', 'desc').limit(opts.limit).offset(opts.offset).execute();
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
