import { exponentOf } from '../domain/currencies';
import { type Cell, csvLine, number, text } from '../domain/csv';
import { unitsToFixed } from '../domain/money';
import type { SettlementLine } from '../store/merchant-payouts';
import { sourceOf } from './balance';

// The settlement report as CSV (docs/balance.md#the-settlement-report): one line per
// balance transaction a payout paid out, with its payout. Amounts are decimals in the
// line's currency ("10.50"), times ISO 8601 in UTC; the `net` of a payout's lines adds up
// to its `payout_amount`. Quoting and the formula guard are the dashboard exports'
// (domain/csv.ts).

const SETTLEMENT_COLUMNS = [
  'payout_id',
  'payout_created',
  'payout_status',
  'payout_amount',
  'balance_transaction_id',
  'type',
  'source_object',
  'source_id',
  'created',
  'available_on',
  'currency',
  'amount',
  'fee',
  'net',
] as const;

const money = (units: number, currency: string) => number(unitsToFixed(units, exponentOf(currency)));

function cells(line: SettlementLine): Cell[] {
  const source = sourceOf(line);
  return [
    text(line.payout.id),
    text(line.payout.created_at),
    text(line.payout.status),
    money(line.payout.amount, line.currency),
    text(line.id),
    text(line.type),
    text(source.object),
    text(source.id),
    text(line.created_at),
    text(line.available_on),
    text(line.currency),
    money(line.amount, line.currency),
    money(line.fee, line.currency),
    money(line.net, line.currency),
  ];
}

/** The report's text, batch by batch: a byte order mark and the header first, so spreadsheets read it as UTF-8. */
export async function* settlementCsv(batches: AsyncIterable<SettlementLine[]>): AsyncGenerator<string> {
  yield `\uFEFF${csvLine(SETTLEMENT_COLUMNS.map(text))}`;
  for await (const lines of batches) yield lines.map((l) => csvLine(cells(l))).join('');
}
