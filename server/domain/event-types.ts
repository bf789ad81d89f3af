// The events the service emits: every family and its changes, in one registry the outbox,
// the API's filters and webhook endpoints, and the dashboard's words all read.

/**
 * Every event family and its changes: the one registry. A family added here must be given
 * its snapshot in notify/outbox.ts (a compile error until it is), and its types are then
 * accepted everywhere an event type is.
 */
export const EVENT_FAMILIES = {
  transaction: ['paid', 'cancelled', 'expired'],
  sale: ['created', 'declined', 'failed', 'captured', 'refunded', 'voided', 'hold_expired', 'late_payment', 'refund_failed'],
  authorization: ['created', 'charged', 'removed', 'failed', 'expired'],
  client: ['created', 'updated', 'compliance_changed'],
  iban: ['created', 'updated', 'compliance_changed'],
  document: ['accepted', 'rejected'],
  wallet: ['credited', 'debited'],
  // in_transit, returned and pending (back from a cancelled file): payouts by SEPA file (docs/balance.md#payout-files).
  transfer: ['paid', 'failed', 'in_transit', 'returned', 'pending'],
  merchant_payout: ['created', 'paid', 'failed', 'in_transit', 'returned', 'pending'],
  subscription: ['started', 'paused', 'resumed', 'stopped', 'charged', 'charge_failed', 'past_due'],
  webhook_endpoint: ['created', 'updated', 'deleted', 'disabled'],
  product: ['created', 'updated', 'deleted'],
  plan: ['created', 'updated', 'deleted'],
  tax: ['created', 'updated', 'deleted'],
  shipping: ['created', 'updated', 'deleted'],
  coupon: ['created', 'updated', 'deleted'],
  dispute: ['created', 'updated', 'closed'],
} as const;

type Families = typeof EVENT_FAMILIES;
export type EventFamily = keyof Families;
export type EventType = { [F in EventFamily]: `${F}.${Families[F][number]}` }[EventFamily];

export const EVENT_TYPES = Object.entries(EVENT_FAMILIES).flatMap(([family, changes]) =>
  changes.map((change) => `${family}.${change}`),
) as [EventType, ...EventType[]];

/** The catalogue's families: their snapshots are the catalogue's own presenters (notify/outbox.ts). */
export type CatalogueFamily = 'product' | 'plan' | 'tax' | 'shipping' | 'coupon';

export const familyOf = (type: EventType): EventFamily => type.slice(0, type.indexOf('.')) as EventFamily;
