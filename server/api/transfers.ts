import { z } from 'zod';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, fieldError, found } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentTransfer, TRANSFER_STATUSES } from '../present/wallet';
import { createPayout } from '../payments/payouts';
import { transferBetweenWallets, type TransferOutcome } from '../payments/transfers';
import { getClient, getIban } from '../store/clients';
import type { Db } from '../store/db';
import type { PostingRefused } from '../payments/ledger-posting';
import { getWallet, type Wallet } from '../store/ledger';
import { findTransferById, getTransfer, listTransfers } from '../store/transfers';
import { refuseWithoutHolder, refuseWithoutPayouts } from './live-payouts';
import { checkNotifyUrl } from '../commands/notify-url';
import { eitherOf, exact, freeText, httpUrl, livemode, nonBlank, objectId, positiveMoneyAmount, ref, text, timestamps } from '../schemas/fields';
import { toMinor } from '../http/amounts';
import { IDS, page, TRANSFER_EXAMPLE } from './examples';
import { refuseDisabledClient } from '../transactions/create';

// Transfers: money from a wallet to another wallet of the same environment and currency
// (settled at once), or to a client's IBAN (a payout). The spec shows no fields: these
// are documented in docs/wallets.md.

const transferCreate = eitherOf(
  z.strictObject({
    source_wallet: ref('wallet').describe('`id` of the wallet the money leaves'),
    destination_wallet: ref('wallet').optional().describe('`id` of the wallet the money goes to; or send destination_iban'),
    destination_iban: ref('client IBAN').optional().describe('`id` of a client IBAN to pay out to; or send destination_wallet'),
    amount: positiveMoneyAmount("Major units of the wallets' currency"),
    concept: freeText(255).optional().describe('Shown on both ledger entries'),
    transfer_id: nonBlank(text(255)).optional().describe('Your external identifier, unique in the environment'),
    notify_url: httpUrl.optional().describe('transfer.paid and transfer.failed events are sent here'),
  }),
  'destination_wallet',
  'destination_iban',
).meta({ id: 'Transfer', description: 'Money to move from a wallet to a wallet or an IBAN' });

export const transferOut = z
  .object({
    id: objectId,
    livemode,
    transfer_id: z.string().nullable().describe('Your external identifier'),
    status: z
      .enum(TRANSFER_STATUSES)
      .describe('paid: settled (a payout by SEPA file: a bank statement shows it); pending: a payout not sent yet; in_transit: a payout in a file sent to the bank; returned: a payout paid, then sent back by the bank, its money returned; failed: a payout that failed, its money returned'),
    source_wallet: z.uuid().describe('`id` of the wallet the money left'),
    destination_wallet: z.uuid().nullable().describe('`id` of the wallet the money went to'),
    destination_iban: z.uuid().nullable().describe('`id` of the client IBAN paid out to'),
    amount: z.number().describe("Major units of the wallets' currency"),
    currency: z.string().describe("The wallets' currency"),
    concept: z.string().nullable().describe('Shown on both ledger entries'),
    notify_url: z.string().nullable().describe('Where transfer.* events are sent'),
    failure: z.string().nullable().describe('Why a payout failed'),
    ...timestamps,
  })
  .meta({ id: 'Transfer', description: 'Money moved from a wallet to a wallet or to an IBAN' });

async function walletOf(db: Db, envId: string, id: string, path: string) {
  const row = await getWallet(db, envId, id);
  if (!row) throw fieldError(path, 'is not a wallet of this environment');
  return row;
}

const duplicateTransferId = () =>
  new ApiError('conflict', 'transfer_id: another transfer of this environment has it; nothing was moved', [
    { path: 'transfer_id', message: 'is already used by another transfer' },
  ]);

/** A posting refused when the money moved: the wallet named by the field it came from. */
function refused(r: PostingRefused, paths: Record<string, string>): ApiError {
  const path = paths[r.wallet] ?? 'source_wallet';
  const why = {
    disabled: 'is disabled: no money moves into or out of it',
    insufficient: 'does not hold enough money for this amount',
    missing: 'no longer exists',
    currency: 'is in another currency',
  }[r.reason];
  return new ApiError('conflict', `${path}: ${why}; nothing was moved`, [{ path, message: why }]);
}

function answer(outcome: TransferOutcome, paths: Record<string, string>) {
  switch (outcome.kind) {
    case 'made':
      return presentTransfer(outcome.transfer);
    case 'duplicate':
      throw duplicateTransferId();
    case 'refused':
      throw refused(outcome.refusal, paths);
  }
}

/**
 * A payout goes to an IBAN of the source wallet's own client (400 otherwise), enabled, and
 * with both the IBAN and the client through compliance (409 otherwise).
 */
async function payoutIbanOf(db: Db, source: Wallet, ibanId: string) {
  const iban = await getIban(db, source.environment_id, null, ibanId);
  if (!iban) throw fieldError('destination_iban', 'is not an IBAN of a client of this environment');
  if (iban.client_ref !== source.client_id) throw fieldError('destination_iban', "is not an IBAN of the source wallet's client");
  const client = (await getClient(db, source.environment_id, iban.client_ref))!;
  const why = !iban.enabled
    ? 'is disabled'
    : !client.enabled_by_compliance
      ? 'belongs to a client that has not passed compliance'
      : !iban.enabled_by_compliance
        ? 'has not passed compliance'
        : null;
  if (why) throw new ApiError('conflict', `destination_iban: ${why}; nothing was moved`, [{ path: 'destination_iban', message: why }]);
  return iban;
}

const listQuery = pageQuery.extend({
  status: z.enum(TRANSFER_STATUSES).optional().describe('Only transfers in this state'),
  transfer_id: exact(255).optional().describe('Only the transfer with this `transfer_id`'),
  source_wallet: ref('wallet').optional().describe('Only transfers out of this wallet'),
  destination_wallet: ref('wallet').optional().describe('Only transfers into this wallet'),
});

export const transferRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/transfer/',
    operationId: 'listTransfers',
    description: 'The transfers of your environment, newest first.',
    example: { response: page([TRANSFER_EXAMPLE]) },
    summary: 'List transfers, newest first',
    tag: 'Transfers',
    query: listQuery,
    response: pageEnvelopeSchema(transferOut),
    status: 200,
    async handler(ctx) {
      return listPage(ctx, (filters, page) => listTransfers(ctx.db, ctx.env.id, filters, page), presentTransfer);
    },
  }),
  route({
    method: 'post',
    path: '/transfer/',
    operationId: 'createTransfer',
    description: 'Moves money from a wallet to another wallet of the same currency (settled at once) or to a client IBAN (a payout: `pending`, then `paid` or `failed` and reversed). A wallet without the money, or disabled, is a 409.',
    example: { request: { source_wallet: IDS.wallet, destination_wallet: IDS.wallet2, amount: 25, concept: 'Monthly settlement', transfer_id: 'payout-9' }, response: TRANSFER_EXAMPLE },
    summary: 'Move money from a wallet to another wallet (settled at once) or to a client IBAN (a payout)',
    tag: 'Transfers',
    body: transferCreate,
    response: transferOut,
    status: 201,
    async handler({ env, body, deps, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const source = await walletOf(db, env.id, body.source_wallet, 'source_wallet');
      await refuseDisabledClient(db, source, 'source_wallet');
      const amount = toMinor(body.amount, source.currency, 'amount');
      if (body.transfer_id !== undefined && (await findTransferById(db, env.id, body.transfer_id))) throw duplicateTransferId();
      const common = {
        source,
        amount,
        concept: body.concept ?? null,
        transferId: body.transfer_id ?? null,
        notifyUrl: body.notify_url ?? null,
        clock: deps.now,
      };
      if (body.destination_iban !== undefined) {
        refuseWithoutPayouts(deps, env.mode === 'live');
        const iban = await payoutIbanOf(db, source, body.destination_iban);
        refuseWithoutHolder(deps, env.mode === 'live', iban.account_holder_name, 'the client IBAN');
        return answer(await createPayout(deps, db, { ...common, iban }), { [source.id]: 'source_wallet' });
      }
      if (body.destination_wallet === source.id) throw fieldError('destination_wallet', 'must be another wallet than source_wallet');
      const destination = await walletOf(db, env.id, body.destination_wallet!, 'destination_wallet');
      await refuseDisabledClient(db, destination, 'destination_wallet');
      if (destination.currency !== source.currency) {
        throw fieldError('destination_wallet', `is in ${destination.currency}, source_wallet in ${source.currency}`);
      }
      const outcome = await transferBetweenWallets(db, deps.outbox, { ...common, destination });
      return answer(outcome, { [source.id]: 'source_wallet', [destination.id]: 'destination_wallet' });
    },
  }),
  route({
    method: 'get',
    path: '/transfer/{id}/',
    operationId: 'getTransfer',
    description: 'One transfer with its status.',
    example: { response: TRANSFER_EXAMPLE },
    summary: 'Get a transfer',
    tag: 'Transfers',
    response: transferOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = found(await getTransfer(db, env.id, params.id!), 'transfer');
      return presentTransfer(row);
    },
  }),
];
