import type { Calls } from './client.js';
import type { BodyArgs, CallOptions, Query } from './types.js';

// One object per resource of the API, each call a line over its path: the types of the
// bodies, queries and answers come from the generated `paths` (types.ts). Every list is a
// PageIterator; every POST carries an Idempotency-Key (options.idempotencyKey, or a
// random one reused by the client's retries).

const none = {};

/** Transactions and what paying them makes: sales, authorizations, subscriptions, disputes. */
function payments({ get, post, list }: Calls) {
  return {
    transactions: {
      create: (...[body, o]: BodyArgs<'/transaction/', 'post'>) => post('/transaction/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/transaction/{id}/', { id }, o),
      list: (query?: Query<'/transaction/'>, o?: CallOptions) => list('/transaction/', none, query, o),
    },
    sales: {
      get: (id: string, o?: CallOptions) => get('/sale/{id}/', { id }, o),
      list: (query?: Query<'/sale/'>, o?: CallOptions) => list('/sale/', none, query, o),
      /** Captures a hold: the whole of it without a body, or `{ amount }`. */
      capture: (id: string, ...[body, o]: BodyArgs<'/sale/{id}/capture/', 'post'>) => post('/sale/{id}/capture/', { id }, body, o),
      /** Refunds what was captured: all of it without a body, or `{ amount }`. */
      refund: (id: string, ...[body, o]: BodyArgs<'/sale/{id}/refund/', 'post'>) => post('/sale/{id}/refund/', { id }, body, o),
      /** Releases what is held and not captured. */
      void: (id: string, ...[body, o]: BodyArgs<'/sale/{id}/void/', 'post'>) => post('/sale/{id}/void/', { id }, body, o),
    },
    authorizations: {
      create: (...[body, o]: BodyArgs<'/authorization/', 'post'>) => post('/authorization/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/authorization/{id}/', { id }, o),
      list: (query?: Query<'/authorization/'>, o?: CallOptions) => list('/authorization/', none, query, o),
      charge: (id: string, ...[body, o]: BodyArgs<'/authorization/{id}/charge/', 'post'>) => post('/authorization/{id}/charge/', { id }, body, o),
      remove: (id: string, ...[body, o]: BodyArgs<'/authorization/{id}/remove/', 'post'>) => post('/authorization/{id}/remove/', { id }, body, o),
    },
    subscriptions: {
      create: (...[body, o]: BodyArgs<'/subscription/', 'post'>) => post('/subscription/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/subscription/{id}/', { id }, o),
      list: (query?: Query<'/subscription/'>, o?: CallOptions) => list('/subscription/', none, query, o),
      start: (id: string, ...[body, o]: BodyArgs<'/subscription/{id}/start/', 'post'>) => post('/subscription/{id}/start/', { id }, body, o),
      pause: (id: string, ...[body, o]: BodyArgs<'/subscription/{id}/pause/', 'post'>) => post('/subscription/{id}/pause/', { id }, body, o),
      resume: (id: string, ...[body, o]: BodyArgs<'/subscription/{id}/active/', 'post'>) => post('/subscription/{id}/active/', { id }, body, o),
      stop: (id: string, ...[body, o]: BodyArgs<'/subscription/{id}/stop/', 'post'>) => post('/subscription/{id}/stop/', { id }, body, o),
    },
    disputes: {
      get: (id: string, o?: CallOptions) => get('/dispute/{id}/', { id }, o),
      list: (query?: Query<'/dispute/'>, o?: CallOptions) => list('/dispute/', none, query, o),
      /** Saves evidence without submitting it: text fields replace the saved ones, files are added. */
      addEvidence: (id: string, ...[body, o]: BodyArgs<'/dispute/{id}/evidence/', 'post'>) => post('/dispute/{id}/evidence/', { id }, body, o),
      submit: (id: string, ...[body, o]: BodyArgs<'/dispute/{id}/submit/', 'post'>) => post('/dispute/{id}/submit/', { id }, body, o),
      accept: (id: string, ...[body, o]: BodyArgs<'/dispute/{id}/accept/', 'post'>) => post('/dispute/{id}/accept/', { id }, body, o),
    },
  };
}

/** The platform half: clients with their IBANs and documents, wallets, transfers. */
function platform({ get, post, patch, list }: Calls) {
  return {
    clients: {
      create: (...[body, o]: BodyArgs<'/client/', 'post'>) => post('/client/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/client/{id}/', { id }, o),
      list: (query?: Query<'/client/'>, o?: CallOptions) => list('/client/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/client/{id}/', 'patch'>) => patch('/client/{id}/', { id }, body, o),
      ibans: {
        create: (clientId: string, ...[body, o]: BodyArgs<'/client/{clientId}/iban/', 'post'>) => post('/client/{clientId}/iban/', { clientId }, body, o),
        get: (clientId: string, id: string, o?: CallOptions) => get('/client/{clientId}/iban/{id}/', { clientId, id }, o),
        list: (clientId: string, query?: Query<'/client/{clientId}/iban/'>, o?: CallOptions) => list('/client/{clientId}/iban/', { clientId }, query, o),
        update: (clientId: string, id: string, ...[body, o]: BodyArgs<'/client/{clientId}/iban/{id}/', 'patch'>) =>
          patch('/client/{clientId}/iban/{id}/', { clientId, id }, body, o),
      },
      documents: {
        /** Uploads a document, its file in base64 in the JSON body. */
        create: (clientId: string, ...[body, o]: BodyArgs<'/client/{clientId}/document/', 'post'>) => post('/client/{clientId}/document/', { clientId }, body, o),
        get: (clientId: string, id: string, o?: CallOptions) => get('/client/{clientId}/document/{id}/', { clientId, id }, o),
        list: (clientId: string, query?: Query<'/client/{clientId}/document/'>, o?: CallOptions) =>
          list('/client/{clientId}/document/', { clientId }, query, o),
      },
    },
    wallets: {
      create: (...[body, o]: BodyArgs<'/wallet/', 'post'>) => post('/wallet/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/wallet/{id}/', { id }, o),
      list: (query?: Query<'/wallet/'>, o?: CallOptions) => list('/wallet/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/wallet/{id}/', 'patch'>) => patch('/wallet/{id}/', { id }, body, o),
      entries: {
        get: (walletId: string, entryId: string, o?: CallOptions) => get('/wallet/{id}/entry/{entry_id}/', { id: walletId, entry_id: entryId }, o),
        list: (walletId: string, query?: Query<'/wallet/{id}/entry/'>, o?: CallOptions) => list('/wallet/{id}/entry/', { id: walletId }, query, o),
      },
    },
    transfers: {
      create: (...[body, o]: BodyArgs<'/transfer/', 'post'>) => post('/transfer/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/transfer/{id}/', { id }, o),
      list: (query?: Query<'/transfer/'>, o?: CallOptions) => list('/transfer/', none, query, o),
    },
  };
}

/** Events and the webhook endpoints they are delivered to. */
function notifications({ get, post, patch, del, list }: Calls) {
  return {
    events: {
      get: (id: string, o?: CallOptions) => get('/event/{id}/', { id }, o),
      list: (query?: Query<'/event/'>, o?: CallOptions) => list('/event/', none, query, o),
      /**
       * The events after `after` (a previous answer's `cursor`), waiting up to `wait` seconds
       * for one: what `npm run listen` streams. Without `after`, a cursor to start from now.
       */
      poll: (query?: Query<'/event/poll/'>, o?: CallOptions) => get('/event/poll/', none, o, query),
      /** Resends the event to every destination that failed, or to the one the body names. */
      retry: (id: string, ...[body, o]: BodyArgs<'/event/{id}/retry/', 'post'>) => post('/event/{id}/retry/', { id }, body, o),
    },
    webhookEndpoints: {
      /** The answer carries the endpoint's signing secret, this once. */
      create: (...[body, o]: BodyArgs<'/webhook_endpoint/', 'post'>) => post('/webhook_endpoint/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/webhook_endpoint/{id}/', { id }, o),
      list: (query?: Query<'/webhook_endpoint/'>, o?: CallOptions) => list('/webhook_endpoint/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/webhook_endpoint/{id}/', 'patch'>) => patch('/webhook_endpoint/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/webhook_endpoint/{id}/', { id }, o),
      /** A new secret, this once; the old one signs beside it for the overlap. */
      rollSecret: (id: string, ...[body, o]: BodyArgs<'/webhook_endpoint/{id}/roll_secret/', 'post'>) =>
        post('/webhook_endpoint/{id}/roll_secret/', { id }, body, o),
    },
  };
}

/** The catalogue: products, plans, taxes, shipping options, coupons. */
function catalogue({ get, post, patch, del, list }: Calls) {
  return {
    products: {
      create: (...[body, o]: BodyArgs<'/product/', 'post'>) => post('/product/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/product/{id}/', { id }, o),
      list: (query?: Query<'/product/'>, o?: CallOptions) => list('/product/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/product/{id}/', 'patch'>) => patch('/product/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/product/{id}/', { id }, o),
    },
    plans: {
      create: (...[body, o]: BodyArgs<'/plan/', 'post'>) => post('/plan/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/plan/{id}/', { id }, o),
      list: (query?: Query<'/plan/'>, o?: CallOptions) => list('/plan/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/plan/{id}/', 'patch'>) => patch('/plan/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/plan/{id}/', { id }, o),
    },
    taxes: {
      create: (...[body, o]: BodyArgs<'/tax/', 'post'>) => post('/tax/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/tax/{id}/', { id }, o),
      list: (query?: Query<'/tax/'>, o?: CallOptions) => list('/tax/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/tax/{id}/', 'patch'>) => patch('/tax/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/tax/{id}/', { id }, o),
    },
    shippingOptions: {
      create: (...[body, o]: BodyArgs<'/shipping/', 'post'>) => post('/shipping/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/shipping/{id}/', { id }, o),
      list: (query?: Query<'/shipping/'>, o?: CallOptions) => list('/shipping/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/shipping/{id}/', 'patch'>) => patch('/shipping/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/shipping/{id}/', { id }, o),
    },
    coupons: {
      create: (...[body, o]: BodyArgs<'/coupon/', 'post'>) => post('/coupon/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/coupon/{id}/', { id }, o),
      list: (query?: Query<'/coupon/'>, o?: CallOptions) => list('/coupon/', none, query, o),
      update: (id: string, ...[body, o]: BodyArgs<'/coupon/{id}/', 'patch'>) => patch('/coupon/{id}/', { id }, body, o),
      delete: (id: string, o?: CallOptions) => del('/coupon/{id}/', { id }, o),
    },
  };
}

/** What the environment has: gateways, currencies, the balance, the return-signing secret, its own processor accounts. */
function environment({ get, post, patch, del, list }: Calls) {
  return {
    gateways: {
      get: (id: string, o?: CallOptions) => get('/gateway/{id}/', { id }, o),
      list: (query?: Query<'/gateway/'>, o?: CallOptions) => list('/gateway/', none, query, o),
    },
    currencies: {
      get: (id: string, o?: CallOptions) => get('/currency/{id}/', { id }, o),
      list: (query?: Query<'/currency/'>, o?: CallOptions) => list('/currency/', none, query, o),
    },
    balance: {
      get: (o?: CallOptions) => get('/balance/', none, o),
    },
    balanceTransactions: {
      get: (id: string, o?: CallOptions) => get('/balance_transaction/{id}/', { id }, o),
      list: (query?: Query<'/balance_transaction/'>, o?: CallOptions) => list('/balance_transaction/', none, query, o),
    },
    returnSecret: {
      /** The environment's return-signing secret, for verifyReturnUrl. */
      get: (o?: CallOptions) => get('/environment/return_secret/', none, o),
      roll: (...[body, o]: BodyArgs<'/environment/return_secret/roll/', 'post'>) => post('/environment/return_secret/roll/', none, body, o),
    },
    processors: {
      /** Connects your own Stripe account; its keys are write-only (checked once at Stripe). */
      create: (...[body, o]: BodyArgs<'/processor/', 'post'>) => post('/processor/', none, body, o),
      get: (id: string, o?: CallOptions) => get('/processor/{id}/', { id }, o),
      list: (query?: Query<'/processor/'>, o?: CallOptions) => list('/processor/', none, query, o),
      /** Replaces rotated keys, the webhook signing secret or the statement descriptor. */
      update: (id: string, ...[body, o]: BodyArgs<'/processor/{id}/', 'patch'>) => patch('/processor/{id}/', { id }, body, o),
      /** Disconnects it: no new payment uses it; what it took can still be refunded. */
      delete: (id: string, o?: CallOptions) => del('/processor/{id}/', { id }, o),
    },
  };
}

/** Every resource of the client, by name. */
export type Resources = ReturnType<typeof resources>;

export function resources(calls: Calls) {
  return { ...payments(calls), ...platform(calls), ...notifications(calls), ...catalogue(calls), ...environment(calls) };
}
