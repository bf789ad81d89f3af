import type { ExpressionBuilder } from 'kysely';
import type { Db } from './db';
import type { Tables } from './schema';

// A shop's sandbox and live environments paired (migration 129): the dashboard offers a
// switch between them to a member of both. The brand and time zone are set once, in the live
// half, and saved in its sandbox too; saved in the sandbox they stay there, so a sandbox
// member or a sandbox API key (test keys live on developers' machines) never changes what
// real customers see. Keys, endpoints, processors, payouts, data and the team stay each
// environment's own. Pairing and unpairing write the environments: environments.ts does,
// their one writer; here is where a shared setting goes.

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
