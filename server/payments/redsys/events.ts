import { createHash } from 'node:crypto';
import { GatewayAttention } from '../gateway';
import type { ProcessorEventRead } from '../processor-said';
import type { RedsysGateway } from './gateway';

// Redsys's asynchronous notification read at the processor's own route
// (`POST /processors/{id}/events/`, processor-events.ts), in the shape every processor's
// delivery is read there. The three signed fields are the whole proof (notification.ts):
// what does not verify, or is signed with another version than the configured one, is
// refused with nothing recorded. One whose amount or currency is not what we sent
// (`RedsysMismatch`) is verified but never believed: a person looks.

export async function readRedsysNotification(gateway: RedsysGateway, input: { headers: Record<string, string | string[] | undefined>; body: Buffer }): Promise<ProcessorEventRead> {
  const base = { verified: true as const, event: 'notification', type: 'redsys.notification' };
  try {
    const note = await gateway.notification(input);
    if (!note) return { verified: false, reason: 'the signature, its version, the terminal or our reference does not verify' };
    return { ...base, object: note.reference, says: { kind: 'payment', note } };
  } catch (error) {
    // A mismatch names no order we can trust: the notification itself, by its digest, is the item.
    const object = `notification ${createHash('sha256').update(input.body).digest('hex').slice(0, 32)}`;
    if (error instanceof GatewayAttention) return { ...base, object, says: { kind: 'mismatch', why: error.message, reference: null } };
    throw error;
  }
}
