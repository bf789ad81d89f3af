import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

// A merchant's integration written against the types openapi-typescript generates from
// the published document (generator defaults), with openapi-fetch. It is type-checked
// under strict tsc by typed-client.test.ts, then run against the real service: if the
// document and the API disagree, either the compiler or the run says so.

type Problem = components['schemas']['Problem'];

export interface FlowResult {
  productId: string;
  transactionId: string;
  pages: { first: number; second: number; next: string | null };
  captured: number;
  refunded: number;
  replayed: string | null;
  sameTransaction: boolean;
  notFound: Problem;
  overRefund: Problem;
}

function ok<T>(what: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data;
}

export async function merchantFlow(
  baseUrl: string,
  authorization: string,
  /** Pays a transaction as its customer does, on the hosted screen (the sandbox card). */
  pay: (token: string) => Promise<void>,
): Promise<FlowResult> {
  const api = createClient<paths>({ baseUrl: `${baseUrl}/v1`, headers: { Authorization: authorization } });

  // A catalogue product, and transactions whose lines reference it.
  const product = ok(
    'create product',
    await api.POST('/product/', { body: { name: 'Mug', price: 12, currency: 'EUR', product_id: 'mug-01' } }),
  );
  // Neither gateway_selected nor authorize: both have defaults, so both may be left out.
  const plain = ok(
    'create transaction',
    await api.POST('/transaction/', { body: { currency: 'EUR', products: [{ amount: 1, product_id: product.id }] } }),
  );
  // @ts-expect-error currency is required: the generated types must say so
  void api.POST('/transaction/', { body: { products: [{ amount: 1, product_id: product.id }] } }).catch(() => undefined);
  const held = ok(
    'create transaction with authorize',
    await api.POST('/transaction/', {
      body: { currency: 'EUR', order_id: 'order-typed-1', authorize: true, products: [{ amount: 2, product_id: product.id }] },
    }),
  );
  const gatewaySelected: boolean = held.gateway_selected;
  if (gatewaySelected) throw new Error('gateway_selected defaults to false');

  // Pagination: page and page_size are integers; next is an absolute URL.
  const first = ok('list page 1', await api.GET('/transaction/', { params: { query: { page: 1, page_size: 1 } } }));
  const second = ok('list page 2', await api.GET('/transaction/', { params: { query: { page: 2, page_size: 1 } } }));

  // Paid on the hosted screen with authorize: the funds are held, then captured and refunded.
  await pay(held.token);
  const sales = ok('list sales', await api.GET('/sale/', { params: { query: { transaction_id: held.id } } }));
  const sale = sales.results[0];
  if (!sale) throw new Error('no sale for the paid transaction');
  // No body: the whole held amount.
  const captured = ok('capture', await api.POST('/sale/{id}/capture/', { params: { path: { id: sale.id } } }));
  const refunded = ok('refund', await api.POST('/sale/{id}/refund/', { params: { path: { id: sale.id } }, body: { amount: 5 } }));

  // An idempotent retry: the same key and body answer the same transaction, replayed.
  const key = `typed-${held.id}`;
  // The currency is one of the document's CurrencyCode values, not any string.
  const body = { currency: 'EUR' as const, products: [{ amount: 1, product: { name: 'Gift wrap', price: 2.5 } }] };
  const once = await api.POST('/transaction/', { params: { header: { 'Idempotency-Key': key } }, body });
  const twice = await api.POST('/transaction/', { params: { header: { 'Idempotency-Key': key } }, body });

  // Typed errors: the problem body of a 404 and of a 409.
  const missing = await api.GET('/transaction/{id}/', { params: { path: { id: '01943a6e-0000-7000-8000-000000000000' } } });
  const over = await api.POST('/sale/{id}/refund/', { params: { path: { id: sale.id } }, body: { amount: 1000 } });
  if (!missing.error || !over.error) throw new Error('expected errors');
  const notFound: Problem = missing.error;
  const overRefund: Problem = over.error;

  return {
    productId: product.id,
    transactionId: plain.id,
    pages: { first: first.results.length, second: second.results.length, next: first.next },
    captured: captured.captured,
    refunded: refunded.refunded,
    replayed: twice.response.headers.get('Idempotent-Replayed'),
    sameTransaction: ok('first keyed', once).id === ok('replayed', twice).id,
    notFound,
    overRefund,
  };
}
