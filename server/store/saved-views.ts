import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { SavedViewRow } from './schema';

// The payments list's saved views: one member's, in one environment. Every query names both,
// so a view of another member or environment is as absent as one never saved.

/** Enough for every view a shop keeps; more is refused (the page says so). */
const MAX_SAVED_VIEWS = 20;
/** The longest name of a view, in characters. */
export const VIEW_NAME_MAX = 60;

export interface ViewOwner {
  environmentId: string;
  userId: string;
}

export function listSavedViews(db: Db, o: ViewOwner): Promise<SavedViewRow[]> {
  return db.selectFrom('saved_views').selectAll().where('user_id', '=', o.userId).where('environment_id', '=', o.environmentId).orderBy('id').limit(MAX_SAVED_VIEWS).execute();
}

/** Saves a view; false (nothing saved) when the member has MAX_SAVED_VIEWS already. */
export async function saveView(db: Db, o: ViewOwner, view: { name: string; query: string }, now: Date): Promise<boolean> {
  if ((await listSavedViews(db, o)).length >= MAX_SAVED_VIEWS) return false;
  const at = now.toISOString();
  await db
    .insertInto('saved_views')
    .values({ id: uuidv7(now.getTime()), environment_id: o.environmentId, user_id: o.userId, name: view.name, query: view.query, created_at: at, updated_at: at })
    .execute();
  return true;
}

/** Deletes one of the member's views; false when they have none of that id. */
export async function deleteSavedView(db: Db, o: ViewOwner, id: string): Promise<boolean> {
  const done = await db.deleteFrom('saved_views').where('id', '=', id).where('user_id', '=', o.userId).where('environment_id', '=', o.environmentId).executeTakeFirst();
  return done.numDeletedRows > 0n;
}
