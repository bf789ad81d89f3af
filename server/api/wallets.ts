import { z } from 'zod';
import { uuidv7 } from '../domain/ids';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, fieldError, found, notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentEntry, presentWallet } from '../present/wallet';
import { isUniqueViolation } from '../store/errors';
import { getClient } from '../store/clients';
import { getEntry, getWallet, insertWallet, listEntries, listWallets, updateWallet, type Wallet, withCompliance } from '../store/ledger';
import { checkNotifyUrl } from '../commands/notify-url';
import { currencyCode, currencyOut, dateTime, exact, httpUrl, livemode, name, nonBlank, objectId, ref, text, timestamps } from '../schemas/fields';
import { ENTRY_EXAMPLE, IDS, page, WALLET_EXAMPLE } from './examples';

// Wallets (the spec's payment accounts) and their ledger entries, read-only. Money moves
// through transfers and transactions (payments/), never through these routes.

const walletFields = {
  wallet_id: nonBlank(text(255)).describe('Your external identifier of the wallet, unique in the environment'),
  name: name.describe('Name of the wallet'),
  notify_url: httpUrl.nullable().describe('wallet.credited and wallet.debited events are sent here'),
  enabled: z.boolean().describe('false stops every movement into and out of the wallet (409); reads still work'),
};

const walletCreate = z
  .strictObject({
    ...walletFields,
    client_id: ref('client').describe('`id` of the client the wallet belongs to, in the same environment'),
    currency: currencyCode.describe('Currency of every amount in the wallet; fixed at creation'),
    notify_url: walletFields.notify_url.default(null),
    enabled: walletFields.enabled.default(true),
  })
  .meta({ id: 'Wallet', description: 'A new wallet of a client' });

const walletPatch = z
  .strictObject({
    wallet_id: walletFields.wallet_id.optional(),
    name: walletFields.name.optional(),
    notify_url: walletFields.notify_url.optional(),
    enabled: walletFields.enabled.optional(),
  })
  .meta({ id: 'WalletPatch', minProperties: 1, description: 'The fields to change, at least one' })
  .refine((v) => Object.keys(v).length > 0, 'send at least one field to change');

const walletOut = z
  .object({
    id: objectId,
    livemode,
    enabled_by_compliance: z.boolean().describe("The client's compliance state, which the wallet follows"),
    wallet_id: z.string().describe('Your external identifier'),
    name: z.string().describe('Name of the wallet'),
    client_id: z.uuid().describe('`id` of the client the wallet belongs to'),
    currency: currencyOut,
    notify_url: z.string().nullable().describe('Where wallet.credited and wallet.debited events are sent'),
    enabled: z.boolean().describe('false stops every movement into and out of the wallet'),
    balance: z.number().describe('Current balance in major units of `currency`; never below 0'),
    receivable: z
      .number()
      .describe(
        'What the wallet owes the platform, in major units: the part of a refund it no longer held, which the platform covered. Money coming into the wallet pays it back first; 0 when nothing is owed',
      ),
    ...timestamps,
  })
  .meta({ id: 'Wallet', description: 'A balance held for a client, in one currency' });

export const entryOut = z
  .object({
    id: objectId,
    livemode,
    wallet: z.uuid().describe('`id` of the wallet'),
    amount: z.number().describe('Positive: money in; negative: money out. Major units of `currency`'),
    balance: z.number().describe("The wallet's balance right after this entry"),
    concept: z.string().nullable().describe('What the movement was for'),
    currency: currencyOut,
    date: dateTime.describe('When the movement was recorded (ISO 8601, UTC)'),
    with_wallet: z.uuid().nullable().describe('`id` of the counterpart wallet, for a transfer between wallets'),
    with_sale: z.uuid().nullable().describe('`id` of the sale, for a destination credit or its refund'),
    with_external: z.string().nullable().describe('The outside counterpart: `iban:<id of the client IBAN>` for a payout'),
    transfer: z.uuid().nullable().describe('`id` of the transfer that made the entry, if any'),
  })
  .meta({ id: 'WalletEntry', description: 'One immutable movement of a wallet, with the balance after it' });

const duplicate = () => new ApiError('conflict', 'wallet_id: another wallet of this environment has it', [
  { path: 'wallet_id', message: 'is already used by another wallet' },
]);

/** Inserts or updates, turning the unique index on wallet_id into a 409. */
async function uniqueWalletId<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

const walletQuery = pageQuery.extend({
  wallet_id: exact(255).optional().describe('Only the wallet with this `wallet_id`'),
  client_id: exact(64).optional().describe('Only the wallets of the client with this `id`'),
  currency: exact(3).optional().describe('Only wallets in this currency'),
  enabled: z.enum(['true', 'false']).optional().describe('Only enabled (`true`) or disabled (`false`) wallets'),
});

const entryQuery = pageQuery.extend({
  with_wallet: ref('wallet').optional().describe('Only entries with this counterpart wallet'),
  with_sale: ref('sale').optional().describe('Only entries of this sale'),
  transfer: ref('transfer').optional().describe('Only entries of this transfer'),
});


function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/wallet/',
    operationId: 'listWallets',
    description: 'The wallets of your environment with their balances, newest first.',
    example: { response: page([WALLET_EXAMPLE]) },
    summary: 'List wallets, newest first',
    tag: 'Wallets',
    query: walletQuery,
    response: pageEnvelopeSchema(walletOut),
    status: 200,
    handler: (ctx) =>
      listPage(
        ctx,
        ({ enabled, ...filters }, p) => listWallets(ctx.db, ctx.env.id, { ...filters, ...(enabled === undefined ? {} : { enabled: enabled === 'true' }) }, p),
        presentWallet,
      ),
  });
}

/** A new wallet's row: empty, with no entries. */
function newWallet(environmentId: string, body: z.output<typeof walletCreate>, now: Date): Wallet {
  const at = now.toISOString();
  return {
    id: uuidv7(now.getTime()),
    environment_id: environmentId,
    wallet_id: body.wallet_id,
    name: body.name,
    client_id: body.client_id,
    currency: body.currency,
    notify_url: body.notify_url,
    enabled: body.enabled,
    balance: 0,
    receivable: 0,
    entry_count: 0,
    created_at: at,
    updated_at: at,
  };
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/wallet/',
    operationId: 'createWallet',
    description: 'Creates a wallet for a client, in one currency, with a balance of 0. A `wallet_id` already used is a 409.',
    example: { request: { wallet_id: 'ana-eur', name: 'Ana (EUR)', client_id: IDS.client, currency: 'EUR' }, response: { ...WALLET_EXAMPLE, balance: 0 } },
    problems: [409],
    summary: 'Create a wallet for a client, with a balance of 0',
    tag: 'Wallets',
    body: walletCreate,
    response: walletOut,
    status: 201,
    async handler({ env, body, deps, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const client = await getClient(db, env.id, body.client_id);
      if (!client) throw fieldError('client_id', 'is not a client of this environment');
      const row = newWallet(env.id, body, deps.now());
      await uniqueWalletId(() => insertWallet(db, row));
      return presentWallet({ ...row, enabled_by_compliance: client.enabled_by_compliance });
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/wallet/{id}/',
    operationId: 'getWallet',
    description: 'One wallet with its current balance.',
    example: { response: WALLET_EXAMPLE },
    summary: 'Get a wallet with its current balance',
    tag: 'Wallets',
    response: walletOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = found(await getWallet(db, env.id, params.id!), 'wallet');
      return presentWallet((await withCompliance(db, [row]))[0]!);
    },
  });
}

function updateRoute(): RouteDef {
  return route({
    method: 'patch',
    path: '/wallet/{id}/',
    operationId: 'updateWallet',
    description: 'Changes the fields sent; `currency` and `client_id` are fixed. A `wallet_id` already used is a 409.',
    example: { request: { name: 'Ana (main)' }, response: { ...WALLET_EXAMPLE, name: 'Ana (main)' } },
    problems: [409],
    summary: 'Change the name, wallet_id, notify_url or enabled of a wallet (its currency and client are fixed)',
    tag: 'Wallets',
    body: walletPatch,
    response: walletOut,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const { enabled, ...rest } = body;
      const set = { ...rest, ...(enabled === undefined ? {} : { enabled }) };
      const row = found(await uniqueWalletId(() => updateWallet(db, env.id, params.id!, set, deps.now())), 'wallet');
      return presentWallet((await withCompliance(db, [row]))[0]!);
    },
  });
}

function listEntriesRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/wallet/{id}/entry/',
    operationId: 'listWalletEntries',
    description: "The wallet's ledger entries, newest first; each carries the balance right after it.",
    example: { response: page([ENTRY_EXAMPLE]) },
    summary: "List a wallet's ledger entries, newest first",
    tag: 'Wallets',
    query: entryQuery,
    response: pageEnvelopeSchema(entryOut),
    status: 200,
    async handler(ctx) {
      const { env, params, db } = ctx;
      if (!(await getWallet(db, env.id, params.id!))) throw notFound('wallet');
      return listPage(ctx, (filters, p) => listEntries(db, env.id, params.id!, filters, p), presentEntry);
    },
  });
}

function getEntryRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/wallet/{id}/entry/{entry_id}/',
    operationId: 'getWalletEntry',
    description: 'One ledger entry of the wallet.',
    example: { response: ENTRY_EXAMPLE },
    summary: 'Get one ledger entry of a wallet',
    tag: 'Wallets',
    response: entryOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = await getEntry(db, env.id, params.id!, params.entry_id!);
      if (!row) throw new ApiError('not_found', 'No entry with this id in this wallet');
      return presentEntry(row);
    },
  });
}

export const walletRoutes = (): RouteDef[] => [listRoute(), createRoute(), getRoute(), updateRoute(), listEntriesRoute(), getEntryRoute()];
