// Example objects for the OpenAPI document: one of each resource, as the API answers it.
// Typed by the routes that use them (RouteDef.example) and checked against the schemas by
// the linters (Spectral's oas3-valid-media-example).

export const EXAMPLE_TIME = '2026-01-15T10:30:00.000Z';
const CREATED = EXAMPLE_TIME;

export const IDS = {
  transaction: '01943a6e-5b1c-7c3a-9f2e-1a2b3c4d5e6f',
  product: '01943a6e-4a0b-7b29-8e1d-0f1e2d3c4b5a',
  sale: '01943a6e-7d3e-7e5c-a14a-3c4d5e6f7a8b',
  gateway: '5b1f7a3e-2c4d-5e6f-8a9b-0c1d2e3f4a5b',
  authorization: '01943a6e-8e4f-7f6d-b25b-4d5e6f7a8b9c',
  operation: '01943a6e-9f50-7a7e-836c-5e6f7a8b9c0d',
  plan: '01943a6e-a061-7b8f-947d-6f7a8b9c0d1e',
  subscription: '01943a6e-b172-7c90-a58e-7a8b9c0d1e2f',
  event: '01943a6e-c283-7da1-b69f-8b9c0d1e2f3a',
  client: '01943a6e-d394-7eb2-87a0-9c0d1e2f3a4b',
  iban: '01943a6e-e4a5-7fc3-98b1-0d1e2f3a4b5c',
  document: '01943a6e-f5b6-70d4-a9c2-1e2f3a4b5c6d',
  wallet: '01943a6f-06c7-71e5-bad3-2f3a4b5c6d7e',
  wallet2: '01943a6f-17d8-72f6-8be4-3a4b5c6d7e8f',
  entry: '01943a6f-28e9-7307-9cf5-4b5c6d7e8f90',
  transfer: '01943a6f-39fa-7418-ad06-5c6d7e8f9001',
  currency: '7a1c2b3d-4e5f-5a6b-8c7d-9e0f1a2b3c4d',
  delivery: '01943a6f-4b0b-7529-be17-6d7e8f900112',
  webhookEndpoint: '01943a6f-5c1c-763a-8f28-7e8f90011223',
};

/** A one-page list envelope around `items`. */
export function page<T>(items: T[]) {
  return { count: items.length, items_per_page: 20, next: null, previous: null, results: items };
}

export const TRANSACTION_REQUEST = {
  order_id: 'order-1042',
  currency: 'EUR',
  return_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
  language: 'en' as const,
  customer_email: 'ana@example.com',
  products: [
    { amount: 2, product: { name: 'Coffee beans', price: 8.5 } },
    { amount: 1, product_id: IDS.product },
  ],
  shipping_value: 4.95,
  shipping_name: 'Courier',
};

export const TRANSACTION_EXAMPLE = {
  id: IDS.transaction,
  token: 'tCq9ZlP2x8mV4nR7sK1wYb3dF6hJ0gLe',
  status: 'N' as const,
  payment_url: 'http://localhost:3000/pay/tCq9ZlP2x8mV4nR7sK1wYb3dF6hJ0gLe/',
  order_id: 'order-1042',
  currency: 'EUR',
  note: null,
  extra: null,
  return_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
  notify_url: null,
  gateway_selected: false,
  language: 'en' as const,
  customer_email: 'ana@example.com',
  expired_date: '2026-01-22T10:30:00.000Z',
  products: [
    {
      amount: 2,
      product_id: null,
      product: { product_id: null, name: 'Coffee beans', price: 8.5, description: null },
      total: 17,
    },
    {
      amount: 1,
      product_id: IDS.product,
      product: { product_id: 'mug-01', name: 'Mug', price: 12, description: 'Stoneware, 300 ml' },
      total: 12,
    },
  ],
  tax_value: 0,
  tax_name: null,
  tax: null,
  shipping_value: 4.95,
  shipping_name: 'Courier',
  shipping: null,
  coupon_value: 0,
  coupon_name: null,
  coupon: null,
  authorize: false,
  source: null,
  destination: null,
  items_price: 29,
  total_price: 33.95,
  created: CREATED,
  updated: CREATED,
};

export const SALE_EXAMPLE = {
  id: IDS.sale,
  reference: '5E6F-7A8B',
  status: 'captured' as const,
  transaction_id: IDS.transaction,
  authorization_id: null,
  gateway: IDS.gateway,
  currency: 'EUR',
  amount: 33.95,
  held: 0,
  captured: 33.95,
  refunded: 0,
  voided: 0,
  refundable: 33.95,
  fee: 0,
  processor_settlement: null,
  disputed: false,
  failure: null,
  confirm_url: null,
  description: null,
  card: { brand: 'visa', last4: '4242' },
  authentication: { status: 'authenticated' as const, method: 'challenge' as const },
  notify_url: null,
  operations: [{ id: IDS.operation, kind: 'capture' as const, amount: 33.95, reason: null, created: CREATED }],
  hold_expired: null,
  late_for_transaction: null,
  created: CREATED,
  updated: CREATED,
};

export const AUTHORIZATION_EXAMPLE = {
  id: IDS.authorization,
  status: 'active' as const,
  transaction_id: null,
  gateway: IDS.gateway,
  card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
  client: null,
  authentication: { status: 'authenticated' as const, method: 'challenge' as const },
  notify_url: null,
  token: null,
  url: null,
  created: CREATED,
  updated: CREATED,
};

export const SUBSCRIPTION_EXAMPLE = {
  id: IDS.subscription,
  plan: IDS.plan,
  client: null,
  subscription_id: 'sub-77',
  authorization: IDS.authorization,
  status: 'active' as const,
  payment_url: null,
  notify_url: null,
  return_url: null,
  cancel_url: null,
  language: null,
  customer_email: null,
  plan_name: 'Coffee club',
  amount: 19.9,
  currency: 'EUR',
  interval: 'month' as const,
  interval_count: 1,
  trial_days: 0,
  started: CREATED,
  trial_end: null,
  current_period_start: CREATED,
  current_period_end: '2026-02-15T10:30:00.000Z',
  next_charge_date: '2026-02-15T10:30:00.000Z',
  failed_attempts: 0,
  paused: null,
  stopped: null,
  stop_reason: null,
  charges: [
    {
      period: 1,
      period_start: CREATED,
      period_end: '2026-02-15T10:30:00.000Z',
      amount: 19.9,
      currency: 'EUR',
      status: 'charged' as const,
      attempts: 1,
      failure: null,
      transaction: IDS.transaction,
      sale: IDS.sale,
      confirm_url: null,
    },
  ],
  created: CREATED,
  updated: CREATED,
};

export const EVENT_EXAMPLE = {
  id: IDS.event,
  type: 'transaction.paid' as const,
  created: CREATED,
  data: { id: IDS.transaction, status: 'D' },
  notify_url: 'https://shop.example/hooks/payments',
  delivery_status: 'delivered' as const,
  attempt_count: 1,
  next_attempt: null,
  delivered: CREATED,
  deliveries: [
    {
      id: IDS.event,
      destination: 'notify_url' as const,
      webhook_endpoint: null,
      url: 'https://shop.example/hooks/payments',
      delivery_status: 'delivered' as const,
      attempt_count: 1,
      next_attempt: null,
      delivered: CREATED,
    },
    {
      id: IDS.delivery,
      destination: 'webhook_endpoint' as const,
      webhook_endpoint: IDS.webhookEndpoint,
      url: 'https://shop.example/hooks/all',
      delivery_status: 'delivered' as const,
      attempt_count: 1,
      next_attempt: null,
      delivered: CREATED,
    },
  ],
};

export const EVENT_DETAIL_EXAMPLE = {
  ...EVENT_EXAMPLE,
  attempts: [
    { delivery: IDS.event, attempt: 1, created: CREATED, result: 'delivered' as const, status_code: 200, error: null, response_body: 'ok', duration_ms: 84 },
    { delivery: IDS.delivery, attempt: 1, created: CREATED, result: 'delivered' as const, status_code: 204, error: null, response_body: null, duration_ms: 61 },
  ],
};

export const EVENT_POLL_EXAMPLE = { events: [EVENT_EXAMPLE], cursor: IDS.event };

export const WEBHOOK_ENDPOINT_REQUEST = {
  url: 'https://shop.example/hooks/all',
  enabled_events: ['transaction.paid' as const, 'sale.refunded' as const],
  description: 'Order fulfilment',
};

export const WEBHOOK_ENDPOINT_EXAMPLE = {
  id: IDS.webhookEndpoint,
  url: 'https://shop.example/hooks/all',
  description: 'Order fulfilment',
  enabled_events: ['transaction.paid' as const, 'sale.refunded' as const],
  enabled: true,
  disabled_reason: null,
  secret_rolled_until: null,
  created: CREATED,
  updated: CREATED,
};

export const WEBHOOK_ENDPOINT_WITH_SECRET_EXAMPLE = { ...WEBHOOK_ENDPOINT_EXAMPLE, secret: 'whsec_FAKE_example_endpoint_secret' };

export const CLIENT_REQUEST = {
  name: 'Ana García',
  client_id: 'cust-311',
  client_type: 'individual' as const,
  id_type: 'national_id' as const,
  id_country: 'ES',
  id_number: '12345678Z',
  email: 'ana@example.com',
  country: 'ES',
};

export const CLIENT_EXAMPLE = {
  id: IDS.client,
  enabled_by_compliance: false,
  ...CLIENT_REQUEST,
  id_expiration_date: null,
  phone: null,
  web: null,
  incorporation_date: null,
  birth_date: null,
  birth_country: null,
  nationality: null,
  street: null,
  postal_code: null,
  city: null,
  province: null,
  notify_url: null,
  enabled: true,
  created: CREATED,
  updated: CREATED,
};

export const IBAN_EXAMPLE = {
  id: IDS.iban,
  client: IDS.client,
  enabled_by_compliance: false,
  iban_id: 'main',
  iban: 'ES9121000418450200051332',
  notify_url: null,
  enabled: true,
  account_holder_name: 'Ana García',
  created: CREATED,
  updated: CREATED,
};

export const DOCUMENT_EXAMPLE = {
  id: IDS.document,
  client: IDS.client,
  type: 'identity_front' as const,
  status: 'pending' as const,
  status_reason: null,
  file: {
    name: 'id-card.pdf',
    content_type: 'application/pdf' as const,
    size: 48213,
    sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  },
  reviewed: null,
  created: CREATED,
  updated: CREATED,
};

export const WALLET_EXAMPLE = {
  id: IDS.wallet,
  enabled_by_compliance: false,
  wallet_id: 'ana-eur',
  name: 'Ana (EUR)',
  client_id: IDS.client,
  currency: 'EUR',
  notify_url: null,
  enabled: true,
  balance: 120.5,
  receivable: 0,
  created: CREATED,
  updated: CREATED,
};

export const ENTRY_EXAMPLE = {
  id: IDS.entry,
  wallet: IDS.wallet,
  amount: 20,
  balance: 120.5,
  concept: 'Share of order-1042',
  currency: 'EUR',
  date: CREATED,
  with_wallet: null,
  with_sale: IDS.sale,
  with_external: null,
  transfer: null,
};

export const TRANSFER_EXAMPLE = {
  id: IDS.transfer,
  transfer_id: 'payout-9',
  source_wallet: IDS.wallet,
  destination_wallet: IDS.wallet2,
  destination_iban: null,
  amount: 25,
  currency: 'EUR',
  concept: 'Monthly settlement',
  status: 'paid' as const,
  failure: null,
  notify_url: null,
  created: CREATED,
  updated: CREATED,
};

export const GATEWAY_EXAMPLE = {
  id: IDS.gateway,
  code: 'sandbox-card',
  name: 'Sandbox card',
  flow: 'form' as const,
  currencies: null,
  enabled: true,
  enabled_by_compliance: true,
  capabilities: { hold: true, partial_capture: true, repeated_capture: true, refunds: true, partial_refunds: true, saved_cards: true },
  test_cards: [
    { number: '4242 4242 4242 4242', behaviour: 'approved' as const },
    { number: '4000 0000 0000 0002', behaviour: 'declined' as const },
  ],
};

export const CURRENCY_EXAMPLE = { id: IDS.currency, code: 'EUR', numeric_code: '978', name: 'Euro', exponent: 2 };

const PROCESSOR_ID = '01943a6f-6d2d-774b-9039-8f9001122334';

export const PROCESSOR_REQUEST = {
  type: 'stripe' as const,
  secret_key: 'sk_test_FAKEexampleNotARealKey1234',
  webhook_secret: 'whsec_FAKE_example_not_a_real_secret',
  publishable_key: 'pk_test_FAKEexampleNotARealKey',
  statement_descriptor: 'SHOP EXAMPLE',
};

export const PROCESSOR_EXAMPLE = {
  id: PROCESSOR_ID,
  type: 'stripe' as const,
  gateways: ['0190f5a0-0000-7000-8000-000000057001'],
  webhook_url: `https://checkout.example/processors/${PROCESSOR_ID}/events/`,
  secret_key_last4: '1234',
  statement_descriptor: 'SHOP EXAMPLE',
  created: CREATED,
  updated: CREATED,
};
