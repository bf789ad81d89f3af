import type { GatewayCall } from '../store/gateway-calls';
import { getAuthorization } from '../store/sales';
import type { PaymentDeps } from './ask';
import type { Gateway, GatewayNotification, SettledResult } from './gateway';
import { signUpAwaiting } from './signup-card';
import { storeNotified } from './store-challenge';

// A processor's verified notification of a card saved on its own page (Redsys: the store's
// challenge was its page, and only its notification carries the stored card). It answers
// the challenge the store call opened, as the customer's return would for a processor that
// can be asked (store-challenge.ts): the authorization is `active` with the card, or open
// again for another card; a sign-up waiting for the card starts (signup-card.ts). A repeat,
// or a notification after the challenge was answered, left or lapsed, changes nothing.

const told = (note: GatewayNotification): SettledResult =>
  note.result.status === 'succeeded'
    ? { outcome: 'approved', reference: note.result.reference, card: note.result.card }
    : { outcome: note.result.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined', card: note.result.card };

export async function applyStoreNotification(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, note: GatewayNotification): Promise<void> {
  const row = await getAuthorization(deps.database.db, null, call.subject_id);
  const open = row && row.status === 'requires_action' && row.gateway_challenge !== null && row.gateway_challenge === call.processor_id;
  if (!open) {
    if (note.result.status === 'succeeded' && row?.gateway_reference !== note.result.reference) {
      deps.log.warn({ call: call.id, authorization: call.subject_id }, 'card stored at the processor after its save was over: not recorded, never charged');
    }
    return;
  }
  const outcome = await storeNotified(deps, row, gateway, told(note));
  deps.log.info({ call: call.id, authorization: row.id, outcome: outcome.kind }, 'card save settled by the processor’s notification');
  // A sign-up's card: the subscription starts without waiting for the customer to come back.
  if (outcome.kind === 'stored') await signUpAwaiting(deps, outcome.authorization);
}
