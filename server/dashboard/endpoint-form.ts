import { EVENT_FAMILIES, type EventFamily } from '../domain/event-types';
import type { StoredEndpoint } from '../store/webhook-endpoints';

// Webhook endpoints' forms: a posted form becomes the API's input, checked and applied by
// the API's own use cases (commands/webhook-endpoint-changes.ts): the same URL rule, event
// type list, secret format and `webhook_endpoint.*` events, with no second copy of a rule.

/** The event types by family, for the form's groups of checkboxes: the one registry's order. */
export const EVENT_GROUPS = Object.entries(EVENT_FAMILIES).map(([family, changes]) => ({ family: family as EventFamily, types: changes.map((c) => `${family}.${c}`) }));

/** The form's values as text, to draw it again: what was posted, or the endpoint as it is. */
export interface EndpointValues {
  url: string;
  description: string;
  events: string[];
}

const listOf = (raw: unknown): string[] => (Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : typeof raw === 'string' ? [raw] : []);
const textOf = (raw: unknown) => (typeof raw === 'string' ? raw : '');

export function postedValues(body: Record<string, unknown>): EndpointValues {
  return { url: textOf(body.url), description: textOf(body.description), events: listOf(body.events) };
}

export const endpointValues = (e: StoredEndpoint): EndpointValues => ({ url: e.url, description: e.description ?? '', events: e.enabled_events });

/** The API's input from the form: an empty description is none; the events as checked (none: the API's own refusal). */
export function endpointInput(v: EndpointValues): Record<string, unknown> {
  return { url: v.url.trim(), description: v.description.trim() === '' ? null : v.description, enabled_events: v.events };
}

/** The roll form's input: a number where the field reads as one, else the text for the API to refuse. */
export function rollInput(body: Record<string, unknown>): Record<string, unknown> {
  const raw = textOf(body.overlap_hours).trim();
  return { overlap_hours: /^\d{1,4}$/.test(raw) ? Number(raw) : raw };
}
