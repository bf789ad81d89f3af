import type { Db } from './db';

// Whether an environment uses the platform's own objects at all: the dashboard shows their
// sections (clients, wallets, stored cards) only once it does, so a shop that only takes
// payments is not shown three empty lists. One indexed look-up each (environment_id first).

export interface PlatformInUse {
  clients: boolean;
  wallets: boolean;
  authorizations: boolean;
}

const hasAny = async (db: Db, table: 'clients' | 'wallets' | 'authorizations', environmentId: string) =>
  (await db.selectFrom(table).select('id').where('environment_id', '=', environmentId).limit(1).executeTakeFirst()) !== undefined;

export async function platformInUse(db: Db, environmentId: string): Promise<PlatformInUse> {
  const [clients, wallets, authorizations] = await Promise.all([hasAny(db, 'clients', environmentId), hasAny(db, 'wallets', environmentId), hasAny(db, 'authorizations', environmentId)]);
  return { clients, wallets, authorizations };
}
