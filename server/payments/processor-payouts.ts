import type { ProcessorPayout } from '../domain/processor-settlement';
import { saveProcessorPayouts } from '../store/processor-payouts';
import type { PaymentDeps } from './ask';
import type { Gateway } from './gateway';

// The payouts a merchant's own processor account makes to the merchant's bank
// (docs/processors.md "The processor's payouts"): read by the daily sweep (processor-sweep.ts)
// from a processor whose API lists them (Stripe's; Redsys's gives none) and stored for the
// Balance page, which never asks the processor while it renders. Read-only: the processor
// pays them out, on its own schedule; nothing here enters our balance or our payouts.

const DAY_MS = 24 * 3_600_000;
/** Payouts created in the last 30 days are read again: a payout's status moves for days after it is made (one may fail after its arrival date). */
const PAYOUT_DAYS = 30;

/** Reads the processor's recent payouts and stores them; how many it listed. A failed reading is logged and left to the next sweep. */
export async function readProcessorPayouts(deps: PaymentDeps, gateway: Gateway, p: { id: string; environment_id: string }): Promise<number> {
  if (!gateway.processorPayouts) return 0;
  const now = deps.now();
  let payouts: ProcessorPayout[];
  try {
    payouts = await gateway.processorPayouts({ since: new Date(now.getTime() - PAYOUT_DAYS * DAY_MS), signal: AbortSignal.timeout(5 * deps.config.gatewayTimeoutMs) });
  } catch (err) {
    deps.log.warn({ processor: p.id, err }, 'processor payouts not read: tried again at the next sweep');
    return 0;
  }
  await saveProcessorPayouts(deps.database.db, { environmentId: p.environment_id, processorId: p.id, now }, payouts);
  return payouts.length;
}
