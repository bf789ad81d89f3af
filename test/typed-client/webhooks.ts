import type { webhooks } from './generated/api';

// A merchant's webhook handler written against the `webhooks` section of the published
// document, as openapi-typescript generates it. typed-client.test.ts type-checks it under
// strict tsc: every event type must be handled (the `never` below), each with the fields
// of its own object, so an event type added, removed or reshaped in the document breaks
// the build here before it breaks a merchant.

type Body<K extends keyof webhooks> = webhooks[K]['post'] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** Any event body the service can POST. */
export type WebhookEvent = { [K in keyof webhooks]: Body<K> }[keyof webhooks];

/** One line about the event, from fields only its own object has. */
export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'transaction.paid':
    case 'transaction.cancelled':
    case 'transaction.expired':
      return `${event.type} ${event.data.order_id ?? event.data.id}: ${event.data.status}, ${event.data.total_price} ${event.data.currency}`;
    case 'sale.created':
    case 'sale.declined':
    case 'sale.failed':
    case 'sale.captured':
    case 'sale.refunded':
    case 'sale.voided':
    case 'sale.hold_expired':
    case 'sale.late_payment':
    case 'sale.refund_failed':
      return `${event.type} ${event.data.id}: captured ${event.data.captured}, refundable ${event.data.refundable}`;
    case 'authorization.created':
    case 'authorization.charged':
    case 'authorization.removed':
    case 'authorization.failed':
    case 'authorization.expired':
      return `${event.type} ${event.data.id}: ${event.data.status}`;
    case 'client.created':
    case 'client.updated':
    case 'client.compliance_changed':
      return `${event.type} ${event.data.name}: ${String(event.data.enabled_by_compliance)}`;
    case 'iban.created':
    case 'iban.updated':
    case 'iban.compliance_changed':
      return `${event.type} ${event.data.iban} of ${event.data.client}`;
    case 'document.accepted':
    case 'document.rejected':
      return `${event.type} ${event.data.type}: ${event.data.status}`;
    case 'wallet.credited':
    case 'wallet.debited':
      return `${event.type} ${event.data.wallet}: ${event.data.amount}, balance ${event.data.balance}`;
    case 'transfer.paid':
    case 'transfer.failed':
    case 'transfer.in_transit':
    case 'transfer.returned':
    case 'transfer.pending':
      return `${event.type} ${event.data.amount} ${event.data.currency}: ${event.data.status}`;
    case 'merchant_payout.created':
    case 'merchant_payout.paid':
    case 'merchant_payout.failed':
    case 'merchant_payout.in_transit':
    case 'merchant_payout.returned':
    case 'merchant_payout.pending':
      return `${event.type} ${event.data.amount} ${event.data.currency} to …${event.data.iban_last4}: ${event.data.status}`;
    case 'subscription.started':
    case 'subscription.paused':
    case 'subscription.resumed':
    case 'subscription.stopped':
    case 'subscription.charged':
    case 'subscription.charge_failed':
    case 'subscription.past_due':
      return `${event.type} ${event.data.plan_name}: ${event.data.status}`;
    case 'webhook_endpoint.created':
    case 'webhook_endpoint.updated':
    case 'webhook_endpoint.deleted':
    case 'webhook_endpoint.disabled':
      return `${event.type} ${event.data.url}: ${event.data.enabled ? 'enabled' : 'disabled'}`;
    case 'product.created':
    case 'product.updated':
    case 'product.deleted':
      return `${event.type} ${event.data.name}: ${event.data.price} ${event.data.currency ?? ''}`;
    case 'plan.created':
    case 'plan.updated':
    case 'plan.deleted':
      return `${event.type} ${event.data.name}: ${event.data.amount} ${event.data.currency} a ${event.data.interval}`;
    case 'tax.created':
    case 'tax.updated':
    case 'tax.deleted':
      return `${event.type} ${event.data.name}: ${event.data.rate} %`;
    case 'shipping.created':
    case 'shipping.updated':
    case 'shipping.deleted':
      return `${event.type} ${event.data.name}: ${event.data.price} ${event.data.currency}`;
    case 'coupon.created':
    case 'coupon.updated':
    case 'coupon.deleted':
      return `${event.type} ${event.data.name}: ${event.data.value} (${event.data.kind})`;
    case 'dispute.created':
    case 'dispute.updated':
    case 'dispute.closed':
      return `${event.type} ${event.data.sale}: ${event.data.amount} ${event.data.currency}, ${event.data.reason}, ${event.data.status}`;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}
