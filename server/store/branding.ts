import { type Actor, recordAuditEach } from './audit';
import { settingsChanged } from './auth-changes';
import { type Db, inTransaction } from './db';
import { pairedIds } from './environment-pairs';
import { setLogoHash, setSharedFields } from './environments';
import type { EnvironmentRow } from './schema';

// An environment's brand: the name customers see, its support address, colours and logo.
// Saved in the live half of a pair, it is saved in its sandbox too (environment-pairs.ts).
// Every change is audited, in each environment it reaches, in the transaction that makes
// it: no change is ever stored without its entry.

export type BrandPatch = Partial<Record<'display_name' | 'support_email' | 'brand_color' | 'accent_color', string | null>>;

const BRAND_COLUMNS = ['name', 'display_name', 'support_email', 'brand_color', 'accent_color', 'logo_sha256'] as const;

export type Brand = Pick<EnvironmentRow, (typeof BRAND_COLUMNS)[number]>;

export function getBrand(db: Db, environmentId: string): Promise<Brand | undefined> {
  return db.selectFrom('environments').select(BRAND_COLUMNS).where('id', '=', environmentId).executeTakeFirst();
}

/** Saves the fields of `patch` that differ from the stored brand, audited as settings_changed with their names. */
export async function updateBrand(db: Db, environmentId: string, patch: BrandPatch, by: Actor, now: Date): Promise<Brand> {
  const changed = await inTransaction(db, async (trx) => {
    const before = (await getBrand(trx, environmentId))!;
    const fields = (Object.keys(patch) as (keyof BrandPatch)[]).filter((f) => (before[f] ?? null) !== patch[f]);
    if (!fields.length) return false;
    await setSharedFields(trx, environmentId, Object.fromEntries(fields.map((f) => [f, patch[f]])));
    await recordAuditEach(trx, await pairedIds(trx, environmentId), by, 'settings_changed', { fields: fields.join(', ') }, now);
    return true;
  });
  if (changed) settingsChanged();
  return (await getBrand(db, environmentId))!;
}

export interface Logo {
  sha256: string;
  contentType: string;
  data: Uint8Array;
}

/** Replaces the environment's logo (null removes it), with the hash its URL is named by; audited when something changed. */
export async function setLogo(db: Db, environmentId: string, logo: Logo | null, by: Actor, now: Date): Promise<Brand> {
  await inTransaction(db, async (trx) => {
    const ids = await pairedIds(trx, environmentId);
    const had = (await getBrand(trx, environmentId))?.logo_sha256;
    await trx.deleteFrom('brand_logos').where('environment_id', 'in', ids).execute();
    if (logo) {
      await trx
        .insertInto('brand_logos')
        .values(ids.map((id) => ({ environment_id: id, sha256: logo.sha256, content_type: logo.contentType, data: logo.data, created_at: now.toISOString() })))
        .execute();
    }
    await setLogoHash(trx, ids, logo?.sha256 ?? null);
    if (logo) await recordAuditEach(trx, ids, by, 'logo_changed', { type: logo.contentType, sha256: logo.sha256 }, now);
    else if (had) await recordAuditEach(trx, ids, by, 'logo_removed', undefined, now);
  });
  settingsChanged();
  return (await getBrand(db, environmentId))!;
}

/** The settings form's save: its brand fields and, when one was sent, its logo, in one transaction: both or neither. */
export async function saveBrandForm(db: Db, environmentId: string, patch: BrandPatch, logo: Logo | null, by: Actor, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await updateBrand(trx, environmentId, patch, by, now);
    if (logo) await setLogo(trx, environmentId, logo, by, now);
  });
}

/** The logo under the hash its URL names (an old hash finds nothing). */
export function findLogo(db: Db, environmentId: string, sha256: string) {
  return db
    .selectFrom('brand_logos')
    .select(['content_type', 'data'])
    .where('environment_id', '=', environmentId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}
