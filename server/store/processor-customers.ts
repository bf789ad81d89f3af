import { uuidv7 } from '../domain/ids';
import type { Db } from './db';

// A client's own customer object at a connected processor account (a Stripe Customer,
// migration 104): made once per (processor, client), the first time a card is saved for
// that client there (payments/processor-customers.ts). Of two saves that race, the first
// row written wins and both use it.

/** The customer the client has at that processor account, or null. */
export async function findProcessorCustomer(db: Db, c: { processorId: string; clientId: string }): Promise<string | null> {
  const row = await db.selectFrom('processor_customers').select('customer').where('processor_id', '=', c.processorId).where('client_id', '=', c.clientId).executeTakeFirst();
  return row?.customer ?? null;
}

/** Keeps a customer just made, unless another was kept first: answers the one kept. */
export async function keepProcessorCustomer(db: Db, c: { environmentId: string; processorId: string; clientId: string; customer: string; now: Date }): Promise<string> {
  const at = c.now.toISOString();
  await db
    .insertInto('processor_customers')
    .values({ id: uuidv7(c.now.getTime()), environment_id: c.environmentId, processor_id: c.processorId, client_id: c.clientId, customer: c.customer, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['processor_id', 'client_id']).doNothing())
    .execute();
  return (await findProcessorCustomer(db, c)) ?? c.customer;
}
