import { claimExpiredHolds } from '../store/expiring-holds';
import { postponeExpiry } from '../store/sale-aggregate';
import { paymentReference } from '../store/sales';
import type { SaleRow } from '../store/schema';
import { askGateway, type PaymentDeps } from './ask';
import { moveSaleMoney } from './sale-actions';

// Holds expire: an issuer drops an uncaptured hold after a while, so the service voids it
// first, through the same void as the API's (a reservation, the gateway's void with the
// payment's reference, the record). When is the processor's to say where it says
// (`holdExpiry`: Stripe's `capture_before`, 7 days for most online card payments, other
// periods for some cards and with extended authorization); else HOLD_EXPIRY_MS after the
// sale. Each hold is claimed once it is held, asked, and put off until then. The record
// dates the expiry on the sale and emits `sale.hold_expired` with `sale.voided`, also when
// reconciliation records the void after a crash (the reason travels with the call).

/** A void the gateway refused or did not answer, or a processor that could not say when, is tried again after this long. */
const RETRY_MS = 60 * 60_000;

/** When the sale's hold expires; null when its processor could not be asked now. */
async function expiryOf(deps: PaymentDeps, sale: SaleRow): Promise<Date | null> {
  const fixed = new Date(Date.parse(sale.created_at) + deps.config.holdExpiryMs);
  const gateway = (await deps.gateways.of(sale.environment_id)).find(sale);
  const ask = gateway?.holdExpiry?.bind(gateway);
  const payment = ask && (await paymentReference(deps.database.db, sale.id));
  if (!gateway || !ask || !payment) return fixed;
  const answer = await askGateway(deps, gateway, (signal) => ask({ reference: `hold-expiry-${sale.id}`, payment, signal }));
  if (answer.kind !== 'answered') return null;
  return answer.value ?? fixed;
}

/** One round: claims up to `limit` holds and voids each that has expired; resolves with how many it voided or tried to. */
export async function expireHolds(deps: PaymentDeps, limit = 20): Promise<number> {
  const now = deps.now();
  const sales = await claimExpiredHolds(deps.database.db, {
    now,
    // As long as a payment's claim: the void's gateway call always ends within it.
    leaseMs: deps.config.paymentClaimMs,
    limit,
  });
  let due = 0;
  for (const sale of sales) {
    const expires = await expiryOf(deps, sale);
    if (!expires || expires > now) {
      await postponeExpiry(deps.database.db, sale.id, expires ?? new Date(now.getTime() + RETRY_MS));
      continue;
    }
    due++;
    const outcome = await moveSaleMoney(deps, { sale, action: 'void', amount: sale.held, reason: 'hold_expired' });
    // A capture or void that moved the amounts meanwhile is a conflict: the next round sees what is
    // left. A void of unknown outcome is reconciliation's, which records the expiry with it.
    if (outcome.kind === 'done') deps.log.info({ sale: sale.id, amount: sale.held }, 'expired hold voided');
    if (outcome.kind !== 'gateway_failed') continue;
    deps.log.warn({ sale: sale.id, reason: outcome.reason }, 'expired hold not voided: tried again later');
    await postponeExpiry(deps.database.db, sale.id, new Date(deps.now().getTime() + RETRY_MS));
  }
  return due;
}
