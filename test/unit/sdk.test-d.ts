import {
  type ApiEvent,
  createClient,
  type PageIterator,
  type Sale,
  type Transaction,
  verifyWebhook,
  type WebhookEndpointWithSecret,
  type WebhookEventOf,
} from '../../packages/sdk/src/index';

// The SDK's public types, checked by the compiler (npm run typecheck): they come from the
// generated `paths`, so a call the API would refuse for its shape does not compile, and
// answers are the document's objects.

const client = createClient({ baseUrl: 'http://localhost:3000', publicKey: 'pk', secretKey: 'sk' });

export const listed: PageIterator<Transaction> = client.transactions.list({ status: 'D', page_size: 50 });
export const made: Promise<Transaction> = client.transactions.create({ currency: 'EUR', products: [{ amount: 1, product: { name: 'Mug', price: 12 } }] });
// A capture without a body captures the whole hold; a refund takes an amount.
export const captured: Promise<Sale> = client.sales.capture('id');
export const refunded: Promise<Sale> = client.sales.refund('id', { amount: 5 }, { idempotencyKey: 'refund-1' });
export const endpoint: Promise<WebhookEndpointWithSecret> = client.webhookEndpoints.create({ url: 'https://shop.example/hooks', enabled_events: ['*'] });
export const deleted: Promise<undefined> = client.webhookEndpoints.delete('id');
export const events: PageIterator<ApiEvent> = client.events.list({ type: 'sale.refunded' });
export const entries = client.wallets.entries.list('wallet-id', { page: 2 });
export const needingResponse = client.disputes.list({ status: 'needs_response' });
export const evidence = client.disputes.addEvidence('id', { uncategorized_text: 'winning_evidence', shipping_date: '2026-01-03' });
export const submittedDispute: Promise<string> = client.disputes.submit('id').then((d) => d.status);
// A processor's keys go in, only the last four come out.
export const connected: Promise<string> = client.processors
  .create({ type: 'stripe', secret_key: 'sk_test_x', webhook_secret: 'whsec_x', publishable_key: 'pk_test_x' })
  .then((p) => p.secret_key_last4);
// @ts-expect-error a processor answer never carries its secret key
export const leaked = client.processors.get('id').then((p) => p.secret_key);
export const rotated = client.processors.update('id', { secret_key: 'sk_test_y' });

// @ts-expect-error currency is required
export const noCurrency = client.transactions.create({ products: [] });
// @ts-expect-error a status the API does not have
export const badStatus = client.transactions.list({ status: 'paid' });
// @ts-expect-error a filter the API does not have (it would be a 400)
export const badFilter = client.sales.list({ orderid: 'x' });
// @ts-expect-error a dispute status the API does not have
export const badDisputeStatus = client.disputes.list({ status: 'open' });
// @ts-expect-error a transaction has no update in the API
export const noUpdate = client.transactions.update;

export function handle(payload: string, headers: Record<string, string>, secret: string): string {
  const event = verifyWebhook(payload, headers, secret);
  switch (event.type) {
    case 'sale.refunded': {
      const refunded: WebhookEventOf<'sale.refunded'>['data'] = event.data;
      return `${refunded.id} refundable ${refunded.refundable}`;
    }
    case 'transaction.paid':
      return `${event.data.order_id ?? event.data.id} paid`;
    default:
      // @ts-expect-error not an event type
      return event.type === 'sale.exploded' ? '' : event.type;
  }
}
