import type { Request } from 'express';
import { type RetryTarget, retryEvent } from '../store/events';
import type { ActiveSession } from './accounts';
import type { Kit } from './kit';

// Sending an event again from the dashboard, the one way: the store's `retryEvent`, the
// function behind POST /v1/event/{id}/retry/, audited once it is queued. An event's page
// sends to a destination it names; an endpoint's page sends one attempt's delivery again.

/** The form's destination: '' every one not delivered (every one when all were), `notify_url`, or a webhook endpoint's id. */
export type Destination = '' | 'notify_url' | (string & {});

const targetOf = (destination: Destination): RetryTarget =>
  destination === '' ? { destination: 'failed' } : destination === 'notify_url' ? { destination: 'notify_url' } : { destination: 'endpoint', endpointId: destination };

export async function resendEvent(kit: Kit, req: Request, s: ActiveSession, eventId: string, destination: Destination) {
  const result = await retryEvent(kit.db, s.current.environment_id, eventId, kit.deps.now(), targetOf(destination));
  if (result === 'retried') await kit.audit(req, s, 'event_retried', { event: eventId, destination: destination || 'undelivered' });
  return result;
}
