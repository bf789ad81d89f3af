import type { ExpressionBuilder } from 'kysely';
import { recordAudit } from './audit';
import { type Db, inTransaction } from './db';
import type { Tables } from './schema';

// A shop's sandbox and live environments paired (migration 129): the dashboard offers a
// switch between them to a member of both. The brand and time zone are set once, in the live
// half, and saved in its sandbox too; saved in the sandbox they stay there, so a sandbox
// member or a sandbox API key (test keys live on developers' machines) never changes what
// real customers see. Keys, endpoints, processors, payouts, data and the team stay each
// environment's own.

export type PairRefusal = 'not_found' | 'same_mode' | 'demo' | 'already_paired';

/** Pairs two environments, one sandbox and one live, neither the demo nor paired already; in both audit logs. */
export async function pairEnvironments(db: Db, oneId: string, otherId: string, now: Date): Promise<{ pairId: string } | { refused: PairRefusal }> {
  return inTransaction(db, async (trx) => {
    const rows = await trx.selectFrom('environments').select(['id', 'mode', 'is_demo', 'pair_id']).where('id', 'in', [oneId, otherId]).execute();
    const [a, b] = rows;
    if (!a || !b) return { refused: 'not_found' as const };
    if (a.mode === b.mode) return { refused: 'same_mode' as const };
    if (rows.some((r) => r.is_demo === 1)) return { refused: 'demo' as const };
    if (rows.some((r) => r.pair_id)) return { refused: 'already_paired' as const };
    // The sandbox's id names the pair: the environment a shop starts with.
    const pairId = rows.find((r) => r.mode === 'sandbox')!.id;
    // Only rows still unpaired: two pairings at once cannot both take the same environment.
    const paired = await trx.updateTable('environments').set({ pair_id: pairId }).where('id', 'in', [oneId, otherId]).where('pair_id', 'is', null).executeTakeFirst();
    if (Number(paired.numUpdatedRows) !== 2) throw new Error('environment paired concurrently');
    await auditBoth(trx, 'environment_paired', oneId, otherId, now);
    return { pairId };
  });
}

/** Each half's log says which environment it was paired with or parted from (the operator's `npm run keys`). */
async function auditBoth(db: Db, action: string, oneId: string, otherId: string, now: Date): Promise<void> {
  for (const [id, other] of [[oneId, otherId], [otherId, oneId]] as const) {
    await recordAudit(db, { environmentId: id, userId: null, email: null, ip: null, action, detail: { with: other } }, now);
  }
}

/**
 * Ends the pair the environment is in, named by either half: the switch goes and the brand
 * no longer flows; each keeps the settings it has. Audited in both halves' logs.
 */
export async function unpairEnvironment(db: Db, environmentId: string, now: Date): Promise<{ environments: string[] } | { refused: 'not_found' | 'not_paired' }> {
  return inTransaction(db, async (trx) => {
    const row = await trx.selectFrom('environments').select('pair_id').where('id', '=', environmentId).executeTakeFirst();
    if (!row) return { refused: 'not_found' as const };
    if (!row.pair_id) return { refused: 'not_paired' as const };
    const halves = await trx.selectFrom('environments').select('id').where('pair_id', '=', row.pair_id).orderBy('mode').execute();
    const [one, other] = halves.map((h) => h.id);
    // Only while still paired: of two unpairings at once, one ends the pair and the other finds none.
    const parted = await trx.updateTable('environments').set({ pair_id: null }).where('pair_id', '=', row.pair_id).executeTakeFirst();
    if (Number(parted.numUpdatedRows) !== halves.length) return { refused: 'not_paired' as const };
    await auditBoth(trx, 'environment_unpaired', one!, other!, now);
    return { environments: [one!, other!] };
  });
}

/** Where a shared setting saved in this environment goes: itself and, for the live half of a pair, its sandbox. */
export async function pairedIds(db: Db, environmentId: string): Promise<string[]> {
  const row = await db.selectFrom('environments').select(['pair_id', 'mode']).where('id', '=', environmentId).executeTakeFirst();
  if (!row?.pair_id || row.mode !== 'live') return [environmentId];
  const rows = await db.selectFrom('environments').select('id').where('pair_id', '=', row.pair_id).orderBy('mode').execute();
  return rows.map((r) => r.id);
}

/**
 * A `where` of an update to `environments`: the environment and, when it is the live half of
 * a pair, its sandbox, so one statement saves a shared setting where pairedIds says (a
 * sandbox's or an unpaired environment's subquery is null, equal to none).
 */
export const withItsPair = (environmentId: string) => (eb: ExpressionBuilder<Tables, 'environments'>) =>
  eb.or([
    eb('environments.id', '=', environmentId),
    eb('environments.pair_id', '=', eb.selectFrom('environments as own').select('own.pair_id').where('own.id', '=', environmentId).where('own.mode', '=', 'live')),
  ]);
