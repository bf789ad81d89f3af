import { findProcessorCustomer, keepProcessorCustomer } from '../store/processor-customers';
import { askGateway, type PaymentDeps } from './ask';
import type { Gateway } from './gateway';

// The processor's customer object a card saved for one of our clients is attached to (a
// Stripe Customer): made once per client and processor account, then kept (migration 104)
// and reused by every later save of that client's cards there. It moves no money, so it
// needs no reservation: its reference is the same for every attempt for one client and
// account, so a repeat within the processor's idempotency window answers the same object,
// and a crash between making it and keeping it leaves at most an unused customer there.

export type CustomerFor = { customer?: string } | { failed: string };

/** The customer to store the card under: none without a client (the gateway makes one of its own), or a gateway that keeps none. */
export async function customerFor(deps: PaymentDeps, gateway: Gateway, c: { environmentId: string; clientId: string | null }): Promise<CustomerFor> {
  const make = gateway.customer?.bind(gateway);
  if (!c.clientId || !make || !gateway.account) return {};
  const key = { processorId: gateway.account, clientId: c.clientId };
  const kept = await findProcessorCustomer(deps.database.db, key);
  if (kept) return { customer: kept };
  const reference = `customer_${gateway.account}_${c.clientId}`;
  const answer = await askGateway(deps, gateway, (signal) => make({ reference, signal, client: c.clientId! }));
  if (answer.kind !== 'answered') return { failed: answer.kind === 'not_acted' ? answer.reason : 'the processor did not answer' };
  return { customer: await keepProcessorCustomer(deps.database.db, { ...key, environmentId: c.environmentId, customer: answer.value.customer, now: deps.now() }) };
}
