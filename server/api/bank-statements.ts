import { z } from 'zod';
import { ApiError, fieldError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { BANK_FILE_MAX_BYTES, importBankFile } from '../payments/bank-files';
import { PAYOUT_STATES } from '../domain/sepa/states';
import { exact, nonBlank, text } from '../schemas/fields';

// What the bank sends back about payout files (docs/balance.md#statements): a camt.053 /
// camt.054 statement or a pain.002 status report, sent as client documents are (JSON, the
// bytes in base64). Imported in one database transaction; the same statement twice
// changes nothing; another account or currency is a 409 that changes nothing.

const bankFileIn = z
  .strictObject({
    file: z
      .strictObject({
        name: nonBlank(text(255)).describe('File name, for the record'),
        content_type: z.enum(['application/xml']).describe('`application/xml`'),
        data: z.base64().min(1).describe(`The file, base64; at most ${BANK_FILE_MAX_BYTES} bytes decoded; a DOCTYPE or ENTITY is refused`),
      })
      .describe('The statement or status report'),
  })
  .meta({ id: 'BankStatementInput', description: 'A bank statement (camt.053 / camt.054, .001.02 or .001.08) or status report (pain.002 .001.03 or .001.10) to import' });

const object = z.enum(['merchant_payout', 'transfer']).describe('A payout of your balance, or a wallet\'s payout to a client IBAN');

const bankImportOut = z
  .object({
    kind: z.enum(['camt.053', 'camt.054', 'pain.002']).describe('What the file was'),
    reports: z.array(z.object({ key: z.string().describe('The report\'s key: kind, account and the bank\'s id of it'), duplicate: z.boolean().describe('Imported before: skipped whole') })).describe('The reports it held'),
    changes: z
      .array(z.object({ object, id: z.uuid().describe('The payout\'s `id`'), from: z.enum(PAYOUT_STATES).describe('Its status before'), to: z.enum(PAYOUT_STATES).describe('Its status now') }))
      .describe('Each status change it made, in order; each sent one event'),
    refused: z.array(z.object({ object, id: z.uuid().describe('The payout\'s `id`'), reason: exact(500).describe('Why its line could not move it') })).describe('Lines that named a payout but could not move it: for a person'),
    unmatched: z
      .array(
        z.object({
          report: z.string().describe('The report\'s key'),
          entry: z.number().int().describe('The entry\'s number in the report, from 1'),
          reference: z.string().optional().describe('The bank\'s reference of the entry'),
          direction: z.enum(['CRDT', 'DBIT']).describe('Credit or debit'),
          amount: z.number().int().describe('Minor units'),
          why: z.string().describe('Why it matched no payout'),
        }),
      )
      .describe('Booked lines that matched no payout, listed for a person'),
  })
  .meta({ id: 'BankStatementImport', description: 'What importing a statement or status report did' });

const EXAMPLE = {
  kind: 'camt.053' as const,
  reports: [{ key: 'camt.053:ES9121000418450200051332:STMT-2026-01-18', duplicate: false }],
  changes: [{ object: 'merchant_payout' as const, id: '01943a70-1c2d-7e3f-8a40-5b6c7d8e9fa0', from: 'in_transit' as const, to: 'paid' as const }],
  refused: [],
  unmatched: [],
};

function importRoute() {
  return route({
    method: 'post',
    path: '/bank_statement/',
    operationId: 'importBankStatement',
    description:
      'Imports a bank statement (camt.053 or camt.054) or status report (pain.002) about your payout files. Statement lines are matched by `EndToEndId` (or `PmtInfId` and total for a batch booked as one): a debit marks its payouts `paid`, a return after that `returned` (the money back once); a pain.002 rejection marks them `failed` (the money back). The same statement imported again changes nothing; one of another account or currency, or a report about no file of yours, is a 409 that changes nothing; XML with a DOCTYPE or entities is a 400.',
    example: { request: { file: { name: 'statement.xml', content_type: 'application/xml', data: 'PERvY3VtZW50Lz4=' } }, response: EXAMPLE },
    summary: 'Import a bank statement or status report',
    tag: 'Balance',
    body: bankFileIn,
    response: bankImportOut,
    problems: [409],
    status: 201,
    async handler({ env, body, deps, db }) {
      const bytes = Buffer.from(body.file.data, 'base64');
      if (bytes.byteLength > BANK_FILE_MAX_BYTES) throw new ApiError('payload_too_large', `A statement may be at most ${BANK_FILE_MAX_BYTES} bytes once decoded`, [{ path: 'file.data', message: 'is too large' }]);
      const done = await importBankFile(deps, db, env.id, { name: body.file.name, bytes });
      if (done.ok) return done.result;
      if (done.status === 'invalid') throw fieldError('file.data', done.reason);
      throw new ApiError('conflict', done.reason);
    },
  });
}

export const bankStatementRoutes = (): RouteDef[] => [importRoute()];
