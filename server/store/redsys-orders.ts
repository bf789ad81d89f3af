import type { Db } from './db';

// Redsys order numbers in use (migration 109): one row per (merchant code, terminal, order
// number), naming the payment reference of ours it belongs to.

export interface OrderClaim {
  merchantCode: string;
  terminal: string;
  orderNumber: string;
  reference: string;
  processorId: string;
}

/**
 * Claims an order number for a reference: true when it is now the reference's (claimed
 * here, or by the same reference before), false when another reference holds it. The insert
 * that does nothing on a conflict, then the read, decide under any concurrency: of two
 * claims of one number at once, the primary key lets one in.
 */
export async function claimOrderNumber(db: Db, claim: OrderClaim, now: Date): Promise<boolean> {
  const key = { merchant_code: claim.merchantCode, terminal: claim.terminal, order_number: claim.orderNumber };
  await db
    .insertInto('redsys_orders')
    .values({ ...key, reference: claim.reference, processor_id: claim.processorId, created_at: now.toISOString() })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const held = await db
    .selectFrom('redsys_orders')
    .select('reference')
    .where('merchant_code', '=', key.merchant_code)
    .where('terminal', '=', key.terminal)
    .where('order_number', '=', key.order_number)
    .executeTakeFirst();
  return held?.reference === claim.reference;
}
