import type { Request } from 'express';
import { pairedIds } from '../store/environment-pairs';
import type { ActiveSession } from './accounts';
import type { Kit } from './kit';

/**
 * Audits a change to a setting a pair shares (the brand, the time zone): saved in the live
 * half, it is saved in its sandbox too and is in both halves' logs, so each team sees who
 * changed what it shows (store/environment-pairs.ts).
 */
export async function auditShared(kit: Kit, req: Request, s: ActiveSession, action: string, detail?: Record<string, string>): Promise<void> {
  for (const id of await pairedIds(kit.db, s.current.environment_id)) {
    await kit.audit(req, { ...s, current: { ...s.current, environment_id: id } }, action, detail);
  }
}
