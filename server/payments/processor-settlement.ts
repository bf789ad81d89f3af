import type { AccountSales } from '../store/account-sales';
import { salesMissingSettlement, saveProcessorSettlement } from '../store/processor-settlements';
import { paymentReference } from '../store/sales';
import type { SaleRow } from '../store/schema';
import type { PaymentDeps } from './ask';
import type { Gateway } from './gateway';
import { settledByProcessor } from './settlement';

// What the merchant's own processor account settled for a sale (docs/processors.md "What
// settles where"): its fee and net, read from the processor's record of the captured
// payment and stored with the sale, shown beside our `fee` and never entering our balance
// or payouts (balance.ts leaves processor-settled sales out). Read once the money is
// captured (a payment recorded, a capture recorded); a reading that fails changes nothing
// and is left to the daily sweep (processor-sweep.ts), which reads whatever is missing.

/** How many sales without figures one sweep of a processor reads. */
const SWEEP_READS = 100;

async function readAndSave(deps: PaymentDeps, gateway: Gateway, sale: { id: string; payment: string }): Promise<boolean> {
  const figures = await gateway.processorFigures!({ payment: sale.payment, signal: AbortSignal.timeout(deps.config.gatewayTimeoutMs) });
  if (!figures) return false;
  await saveProcessorSettlement(deps.database.db, sale.id, figures, deps.now());
  return true;
}

/**
 * Reads and stores the figures of a sale whose money was just captured (its row as the
 * capture left it), when its processor settles it and reports them. Never fails what was
 * recorded: a failure is logged and left to the sweep. Whether figures were stored (the
 * sale as answered must then be read again).
 */
export async function readProcessorSettlement(deps: PaymentDeps, row: Pick<SaleRow, 'id' | 'environment_id' | 'gateway_id' | 'gateway_account' | 'captured'>): Promise<boolean> {
  const saleId = row.id;
  try {
    if (row.captured === 0) return false;
    // A gateway every environment has (the sandbox's) says so without reading the environment's processors.
    const shared = deps.gateways.all.find((g) => g.id === row.gateway_id);
    if (shared && !settledByProcessor(shared, deps.gateways.all)) return false;
    const gateway = (await deps.gateways.of(row.environment_id)).find(row);
    if (!gateway?.processorFigures || !settledByProcessor(gateway, deps.gateways.all)) return false;
    const payment = await paymentReference(deps.database.db, saleId);
    return payment ? await readAndSave(deps, gateway, { id: saleId, payment }) : false;
  } catch (err) {
    deps.log.warn({ sale: saleId, err }, 'processor settlement not read: the daily sweep reads it');
    return false;
  }
}

/**
 * The daily sweep's part: the figures of the account's sales that have money captured and
 * none yet, read from that account (another account of the same type has never seen them).
 * How many it stored.
 */
export async function fillProcessorSettlements(deps: PaymentDeps, gateway: Gateway, sales: AccountSales): Promise<number> {
  if (!gateway.processorFigures) return 0;
  let filled = 0;
  for (const sale of await salesMissingSettlement(deps.database.db, { ...sales, limit: SWEEP_READS })) {
    try {
      if (await readAndSave(deps, gateway, sale)) filled++;
    } catch (err) {
      deps.log.warn({ sale: sale.id, err }, 'processor settlement not read: tried again at the next sweep');
    }
  }
  return filled;
}
