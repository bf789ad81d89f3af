import type { StoredEndpoint } from '../store/webhook-endpoints';

/** A webhook endpoint as the API and its events show it: never with its secrets. */
export function presentEndpoint(e: StoredEndpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabled_events: e.enabled_events,
    enabled: e.enabled === 1,
    disabled_reason: e.disabled_reason,
    secret_rolled_until: e.previous_expires_at,
    created: e.created_at,
    updated: e.updated_at,
  };
}
