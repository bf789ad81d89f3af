import { z } from 'zod';
import { PAYOUT_STATES } from '../domain/sepa/states';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found } from '../http/problem';
import { type FileAnswer, route, type RouteDef } from '../http/route';
import { cancelPayoutFile, downloadFile } from '../payments/payout-file-actions';
import { markPayoutPaid } from '../payments/payout-mark-paid';
import { payTwiceWarning, presentFileItem, presentPayoutFile } from '../present/payout-file';
import { fileItems, getFile, listFiles } from '../store/payout-files';
import { page } from './examples';
import { dateTime, livemode, nonBlank, objectId, ref, text } from '../schemas/fields';

// Payout files (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files): the pain.001
// files the payout-files job wrote of a live environment's payouts, to upload to the bank.
// Listed and read as JSON; the XML itself from …/xml/, whose first download sends the
// file's payouts (pending → in_transit); a later download is the same file, with a warning
// that uploading it twice pays twice. A file not booked yet can be cancelled.

const TAG = 'Balance';
const FILE_ID = '01943a71-2a3b-7c4d-8e5f-6a7b8c9d0e1f';

const FILE_STATES = ['written', 'downloaded', 'booked', 'cancelled'] as const;

const payoutFileOut = z
  .object({
    id: objectId,
    livemode,
    state: z.enum(FILE_STATES).describe('`written`: waiting to be downloaded and sent to the bank; `downloaded`: taken for the bank (its payouts `in_transit`); `booked`: a bank statement shows the bank paid from it; `cancelled`: its payouts went back to `pending`'),
    version: z.enum(['pain.001.001.09', 'pain.001.001.03']).describe('The ISO 20022 message version (SEPA_PAIN_VERSION)'),
    message_id: z.string().describe('Its `MsgId`: the id without hyphens'),
    currency: z.string().describe('Always EUR'),
    payout_count: z.number().int().describe('How many payouts it pays'),
    amount: z.number().describe('Major units: the sum of its payouts (its `CtrlSum`)'),
    execution_date: z.iso.date().describe('The day the bank is asked to pay (`ReqdExctnDt`)'),
    download_count: z.number().int().describe('How many times its XML was downloaded'),
    downloaded: dateTime.nullable().describe('When it was first downloaded; null: never'),
    cancelled: dateTime.nullable().describe('When it was cancelled; null: it was not'),
    warning: z.string().nullable().describe('Once downloaded: uploading it to the bank again pays every payout in it twice'),
    created: dateTime.describe('When the job wrote it'),
    updated: dateTime.describe('When its state last changed'),
  })
  .meta({ id: 'PayoutFile', description: 'A SEPA credit-transfer file (pain.001) of your payouts, for your bank' });

const fileItemOut = z
  .object({
    object: z.enum(['merchant_payout', 'transfer']).describe('A payout of your balance, or a wallet\'s payout to a client IBAN'),
    id: objectId.describe('The payout\'s `id`'),
    end_to_end_id: z.string().describe('Its `EndToEndId`, which the bank hands back on its statement'),
    payment_info_id: z.string().describe('The `PmtInfId` of its batch'),
    amount: z.number().describe('Major units'),
    status: z.enum(PAYOUT_STATES).describe('The payout\'s status now'),
  })
  .meta({ id: 'PayoutFileItem', description: 'A payout in a payout file' });

const payoutFileDetail = payoutFileOut.extend({ payouts: z.array(fileItemOut).describe('Its payouts') }).meta({ id: 'PayoutFileWithPayouts', description: 'A payout file with its payouts' });

const EXAMPLE = {
  id: FILE_ID,
  livemode: true,
  state: 'written' as const,
  version: 'pain.001.001.09' as const,
  message_id: FILE_ID.replace(/-/g, ''),
  currency: 'EUR',
  payout_count: 1,
  amount: 32.72,
  execution_date: '2026-01-17',
  download_count: 0,
  downloaded: null,
  cancelled: null,
  warning: null,
  created: '2026-01-17T10:31:00.000Z',
  updated: '2026-01-17T10:31:00.000Z',
};
const ITEM = { object: 'merchant_payout' as const, id: '01943a70-1c2d-7e3f-8a40-5b6c7d8e9fa0', end_to_end_id: '01943a701c2d7e3f8a405b6c7d8e9fa0', payment_info_id: `${EXAMPLE.message_id}-1`, amount: 32.72, status: 'pending' as const };

function listRoute() {
  return route({
    method: 'get',
    path: '/payout_file/',
    operationId: 'listPayoutFiles',
    description: 'Your payout files, newest first (PAYOUT_PROVIDER=sepa-file: a live environment\'s payouts are paid by these files).',
    example: { response: page([EXAMPLE]) },
    summary: 'List payout files',
    tag: TAG,
    query: pageQuery.extend({ state: z.enum(FILE_STATES).optional().describe('Only files in this state') }),
    response: pageEnvelopeSchema(payoutFileOut),
    status: 200,
    handler: (ctx) => listPage(ctx, (f, p) => listFiles(ctx.db, ctx.env.id, f, p), presentPayoutFile),
  });
}

function getRoute() {
  return route({
    method: 'get',
    path: '/payout_file/{id}/',
    operationId: 'getPayoutFile',
    description: 'One payout file with its payouts and their status now. Reading it changes nothing; the XML is at …/xml/.',
    example: { response: { ...EXAMPLE, payouts: [ITEM] } },
    summary: 'Get a payout file and its payouts',
    tag: TAG,
    response: payoutFileDetail,
    status: 200,
    async handler({ env, params, db }) {
      const file = found(await getFile(db, env.id, params.id!), 'payout file');
      return { ...presentPayoutFile(file), payouts: (await fileItems(db, file.id)).map(presentFileItem) };
    },
  });
}

function xmlRoute() {
  return route({
    method: 'get',
    path: '/payout_file/{id}/xml/',
    operationId: 'downloadPayoutFile',
    description:
      'The file itself (`application/xml`), to upload to your bank. The first download sends it: the file becomes `downloaded` and each of its pending payouts `in_transit` (one event each). Every later download is the same file and carries a `Payout-File-Warning` header: uploading it to the bank again pays every payout in it twice. A cancelled file is a 409.',
    example: {},
    summary: 'Download a payout file (the first download sends its payouts)',
    tag: TAG,
    file: ['application/xml'],
    problems: [409],
    status: 200,
    async handler({ env, params, deps }): Promise<FileAnswer> {
      const done = await downloadFile(deps, env.id, params.id!);
      if (!done.ok) throw new ApiError(done.missing ? 'not_found' : 'conflict', done.reason);
      const headers = done.first ? undefined : { 'Payout-File-Warning': payTwiceWarning(done.file.download_count - 1) };
      return { name: `payout-file-${done.file.message_id}.xml`, contentType: 'application/xml', bytes: Buffer.from(done.file.xml, 'utf8'), headers };
    },
  });
}

function cancelRoute() {
  return route({
    method: 'post',
    path: '/payout_file/{id}/cancel/',
    operationId: 'cancelPayoutFile',
    description:
      'Cancels a file the bank has not booked (no statement showed any of its payouts paid): its payouts in transit go back to `pending` (one event each) and go into the next file. Do not upload a cancelled file. A booked file is a 409; a cancelled one answers as it is.',
    example: { response: { ...EXAMPLE, state: 'cancelled', cancelled: '2026-01-17T11:00:00.000Z' } },
    summary: 'Cancel a payout file not yet booked',
    tag: TAG,
    response: payoutFileOut,
    status: 200,
    async handler({ env, params, deps, db, req }) {
      const done = await cancelPayoutFile(deps, db, env.id, params.id!, { userId: null, email: null, ip: req.ip ?? null });
      if (!done.ok) throw new ApiError(done.missing ? 'not_found' : 'conflict', done.reason);
      return presentPayoutFile(done.file);
    },
  });
}

const markPaidBody = z
  .strictObject({
    payout: ref('payout in this file').describe('The `id` of the payout (a merchant payout or a wallet\'s transfer) in this file to mark paid'),
    reason: nonBlank(text(500)).describe('Why you mark it paid by hand (for example, what you saw at your bank); kept in the audit log'),
  })
  .meta({ id: 'PayoutMarkPaidInput', description: 'A payout of the file to mark paid, and why' });

function markPaidRoute() {
  return route({
    method: 'post',
    path: '/payout_file/{id}/mark_paid/',
    operationId: 'markPayoutPaid',
    description:
      'Marks a payout of this file paid by hand: your bank paid it and no statement that shows it will be imported (`POST /v1/bank_statement/` does this by itself). ' +
      'Only a payout `in_transit` can be: it becomes `paid`, with one event (`merchant_payout.paid` or `transfer.paid`), the file becomes `booked` (it can no longer be cancelled), and the audit log keeps your reason. ' +
      'A payout still `pending` (its file not downloaded), `failed` or `returned` is a 409; one already `paid` answers as it is, changing nothing. A payout not in this file is a 404. Answers the file with its payouts.',
    example: {
      request: { payout: ITEM.id, reason: 'Seen paid on the bank website on 2026-01-19' },
      response: { ...EXAMPLE, state: 'booked', download_count: 1, downloaded: '2026-01-17T10:40:00.000Z', warning: payTwiceWarning(1), updated: '2026-01-19T09:12:00.000Z', payouts: [{ ...ITEM, status: 'paid' }] },
    },
    summary: 'Mark a payout of a file paid by hand',
    tag: TAG,
    body: markPaidBody,
    response: payoutFileDetail,
    status: 200,
    async handler({ env, params, body, deps, db, req }) {
      const by = { reason: body.reason, userId: null, email: null, ip: req.ip ?? null };
      const done = await markPayoutPaid(deps, db, env.id, params.id!, body.payout, by);
      if (!done.ok) throw new ApiError(done.missing ? 'not_found' : 'conflict', done.reason);
      const file = found(await getFile(db, env.id, params.id!), 'payout file');
      return { ...presentPayoutFile(file), payouts: (await fileItems(db, file.id)).map(presentFileItem) };
    },
  });
}

export const payoutFileRoutes = (): RouteDef[] => [listRoute(), getRoute(), xmlRoute(), cancelRoute(), markPaidRoute()];
