import type { GatewayCall } from '../store/gateway-calls';
import { findCallByReference } from '../store/unknown-outcomes';
import type { PaymentDeps } from './ask';
import type { Gateway, GatewayNotification } from './gateway';
import { CALL_KINDS } from './call-kinds';
import { settleFound, undoAbandoned } from './reconcile';

// A processor's asynchronous notification (its webhook), posted to our inbound route for
// its gateway: verified by the gateway's module, it settles a pending call exactly as a
// lookup's answer would (the record step settles a call once, whoever brings the answer).

export type NotificationOutcome =
  /** No enabled gateway by that code takes notifications. */
  | 'no_gateway'
  /** The module did not verify it (a bad signature, not for us): nothing changed. */
  | 'unverified'
  /** Verified: recorded, or nothing to do (an unknown reference, a call already settled). */
  | 'accepted';

export async function acceptNotification(
  deps: PaymentDeps,
  code: string,
  input: { headers: Record<string, string | string[] | undefined>; body: Buffer },
): Promise<NotificationOutcome> {
  const gateway: Gateway | undefined = deps.gateways.all.find((g) => g.code === code && g.enabled);
  if (!gateway?.notification) return 'no_gateway';
  let note;
  try {
    note = await gateway.notification(input);
  } catch {
    note = null;
  }
  if (!note) return 'unverified';
  const call = await findCallByReference(deps.database.db, note.reference);
  if (!call || call.gateway_id !== gateway.id) return 'accepted';
  await applyNotification(deps, gateway, call, note);
  return 'accepted';
}

/** A verified notification of one of the gateway's calls: recorded once, or a late success taken down the late-payment path. */
export async function applyNotification(deps: PaymentDeps, gateway: Gateway, call: GatewayCall, note: GatewayNotification): Promise<void> {
  const late = (call.state === 'failed' || call.state === 'abandoned') && note.result.status === 'succeeded' ? note.result : null;
  if (call.state === 'pending') await settleFound(deps, call, note.result, 'notification');
  // Left open when the customer paid another way (redirect.ts), then made after all: reversed at once, as the reconciliation would.
  else if (late && call.state === 'abandoned') await undoAbandoned(deps, gateway, call, late.reference);
  // Made after all, after the settle window had failed it: what its kind does then (call-kinds.ts).
  else if (late) await CALL_KINDS[call.kind].lateSuccess(deps, gateway, call, late);
}
