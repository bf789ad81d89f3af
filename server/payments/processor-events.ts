import { z } from 'zod';
import { noteVerifiedDelivery } from '../store/processor-deliveries';
import { processorOwner } from '../store/processors';
import { findCallByReference } from '../store/unknown-outcomes';
import type { PaymentDeps } from './ask';
import { CALL_KINDS } from './call-kinds';
import type { Gateway } from './gateway';
import { applyNotification } from './notification';
import { confirmedAtProcessor } from './confirm-payment';
import { needsAttention, type ProcessorSource } from './processor-attention';
import { applyDispute } from './processor-disputes';
import { applyRefunds } from './processor-refunds';
import type { ProcessorEventRead, ProcessorEventSays } from './processor-said';
import { PROCESSOR_GATEWAY_IDS } from './processors';
import type { GatewaySet } from './registry';
import { readRedsysNotification } from './redsys/events';
import { REDSYS_CARD_ID, type RedsysGateway } from './redsys/gateway';
import { STRIPE_CARD_ID, type StripeCardGateway } from './stripe/gateway';

// A processor's webhook delivery to its own `webhook_url` (`POST /processors/{id}/events/`,
// processors.ts): verified by the processor's gateway under that processor's secret
// (Stripe: stripe/events.ts, read again from Stripe; Redsys: its signed notification,
// redsys/events.ts), then compared with our books: a payment settles its call exactly as a
// lookup's answer would, once, whoever comes first (the customer's return, this event, the
// reconciliation); refunds are matched with ours (processor-refunds.ts), disputes become
// ours (processor-disputes.ts). An event for a reference we do not know, or for a call of
// another environment or processor, or whose object does not match what we asked, is never
// dropped: it is stored for a person (store/processor-attention.ts, the Overview's "Needs
// attention"), once per object.

export type ProcessorEventOutcome =
  /** Verified: recorded, or nothing to do (a repeat, a call already settled, an event that settles nothing). */
  | 'accepted'
  /** Not a processor we have, or not verified (a bad signature, another API or signature version): nothing changed. */
  | 'refused'
  /** Verified, but the processor could not be asked to read the object again: it delivers again later. */
  | 'unavailable';

export interface ProcessorDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Stripe's `Stripe-Signature` header; Redsys signs inside the body. */
  signature: string | undefined;
}

type ProcessorType = keyof typeof PROCESSOR_GATEWAY_IDS;

const processorId = z.uuid();

/** The processor's gateway that reads its deliveries (its own, even once disconnected), and its reading; undefined when it has none (nothing verifies it). */
function reader({ id, type }: { id: string; type: ProcessorType }, gateways: GatewaySet, input: ProcessorDelivery & { signal: AbortSignal }): { gateway: Gateway; read: () => Promise<ProcessorEventRead> } | undefined {
  if (type === 'redsys') {
    const redsys = gateways.find({ gateway_id: REDSYS_CARD_ID, gateway_account: id }) as RedsysGateway | undefined;
    return redsys && { gateway: redsys, read: () => readRedsysNotification(redsys, input) };
  }
  const stripe = gateways.find({ gateway_id: STRIPE_CARD_ID, gateway_account: id }) as StripeCardGateway | undefined;
  return stripe?.processorEvent && { gateway: stripe, read: () => stripe.processorEvent(input) };
}

export async function acceptProcessorEvent(deps: PaymentDeps, id: string, input: ProcessorDelivery): Promise<ProcessorEventOutcome> {
  if (!processorId.safeParse(id).success) return 'refused';
  const owner = await processorOwner(deps.database.db, id);
  const gateways = owner && (await deps.gateways.of(owner.environment_id));
  const found = owner && gateways && reader({ id, type: owner.type }, gateways, { ...input, signal: AbortSignal.timeout(deps.config.gatewayTimeoutMs) });
  if (!owner || !gateways || !found) return 'refused';
  let read;
  try {
    read = await found.read();
  } catch (err) {
    deps.log.warn({ processor: id, err }, 'processor event verified but not read again: the processor delivers it again');
    return 'unavailable';
  }
  if (!read.verified) {
    deps.log.warn({ processor: id, why: read.reason }, 'processor event refused: nothing recorded');
    return 'refused';
  }
  await noteVerifiedDelivery(deps.database.db, id, deps.now());
  const source = { environmentId: owner.environment_id, processorId: id, gateway: found.gateway, event: read.event, type: read.type };
  await applySaid(deps, { source, type: owner.type, gateways }, read.object, read.says);
  return 'accepted';
}

async function applySaid(deps: PaymentDeps, at: { source: ProcessorSource; type: ProcessorType; gateways: GatewaySet }, object: string, says: ProcessorEventSays): Promise<void> {
  const { source } = at;
  switch (says.kind) {
    case 'nothing':
      return;
    case 'mismatch':
      return needsAttention(deps, source, { subject: object, reference: says.reference, why: `what the processor holds does not match what we asked: ${says.why}` });
    case 'succeeded': {
      const call = await findCallByReference(deps.database.db, says.reference);
      // A pay call that waits for this PaymentIntent (the Payment Element's): settled as its return would, once.
      if (call?.kind === 'pay' && call.processor_id === says.payment && call.environment_id === source.environmentId && PROCESSOR_GATEWAY_IDS[at.type].includes(call.gateway_id)) {
        const gateway = at.gateways.find(call);
        if (gateway) return applyNotification(deps, gateway, call, { reference: says.reference, result: says.result });
      }
      return confirmedAtProcessor(deps, source, says);
    }
    case 'refunds':
      return applyRefunds(deps, source, says.refunds);
    case 'dispute':
      return applyDispute(deps, source, says.dispute);
    case 'payment': {
      const call = await findCallByReference(deps.database.db, says.note.reference);
      // Any of the processor's gateways (Redsys: card and Bizum) may have made the call.
      const gateway = call && PROCESSOR_GATEWAY_IDS[at.type].includes(call.gateway_id) ? at.gateways.find(call) : undefined;
      // Only a payment or a card's save is settled by it, as its kind says (call-kinds.ts).
      const settle = call && CALL_KINDS[call.kind].processorNotification;
      if (!call || !gateway || call.environment_id !== source.environmentId || !settle) {
        return needsAttention(deps, source, { subject: object, reference: says.note.reference, why: 'a payment we do not know: no payment of this environment has this reference' });
      }
      return settle(deps, gateway, call, says.note);
    }
  }
}
