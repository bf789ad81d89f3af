import { z } from 'zod';
import { fieldError } from '../http/problem';
import { type FileAnswer, route, type RouteDef } from '../http/route';
import { settlementCsv } from '../present/settlement-csv';
import { getMerchantPayout, settlementLines } from '../store/merchant-payouts';
import { inLowerCase } from '../schemas/fields';

// The settlement report as CSV (docs/balance.md#the-settlement-report): the lines of one
// payout, or of the payouts made between two days, streamed as they are read.

const DAY_MS = 86_400_000;
const day = z.iso.date({ error: 'must be a date YYYY-MM-DD' });

const reportQuery = z
  .object({
    payout: z.uuid().overwrite(inLowerCase).optional().describe('The `id` of one of your payouts (another is a 400): its lines'),
    from: day.optional().describe('With `to`: the lines of the payouts made from this day (UTC, YYYY-MM-DD)…'),
    to: day.optional().describe('… to this day included'),
  })
  .superRefine((q, ctx) => {
    const range = q.from !== undefined || q.to !== undefined;
    if (q.payout !== undefined && range) ctx.addIssue({ code: 'custom', path: ['payout'], message: 'give either payout or from and to, not both' });
    else if (q.payout === undefined && !range) ctx.addIssue({ code: 'custom', path: ['payout'], message: 'give payout, or from and to' });
    else if (range && (q.from === undefined || q.to === undefined)) ctx.addIssue({ code: 'custom', path: [q.from ? 'to' : 'from'], message: 'from and to go together' });
    else if (range && q.from! > q.to!) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  });

export const settlementReportRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/report/settlement/',
    operationId: 'getSettlementReport',
    description:
      'The settlement report as CSV (UTF-8 with a byte order mark, CRLF lines): one line per balance transaction a payout paid out, with its payout, for one payout (`payout`) or the payouts made from `from` to `to` (failed ones left out: their lines went back to the balance). The `net` of a payout\'s lines adds up to its `payout_amount`. Columns: docs/balance.md#the-settlement-report.',
    example: {},
    summary: 'Download the settlement report (CSV)',
    tag: 'Balance',
    query: reportQuery,
    file: ['text/csv'],
    status: 200,
    async handler({ env, query, db }): Promise<FileAnswer> {
      if (query.payout && !(await getMerchantPayout(db, env.id, query.payout))) throw fieldError('query.payout', 'is not a payout of this environment');
      const range = query.payout
        ? { environmentId: env.id, payoutId: query.payout }
        : { environmentId: env.id, from: `${query.from}T00:00:00.000Z`, to: new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS).toISOString() };
      const name = query.payout ? `settlement-${query.payout}.csv` : `settlement-${query.from}-${query.to}.csv`;
      return { name, contentType: 'text/csv; charset=utf-8', chunks: settlementCsv(settlementLines(db, range)) };
    },
  }),
];
