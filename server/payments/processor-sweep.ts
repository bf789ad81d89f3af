import type { Deps } from '../deps';
import { saleOfPayment } from '../store/processor-disputes';
import type { AccountSales } from '../store/account-sales';
import { claimSweeps, type SweptProcessor, sweepDueAt } from '../store/processors';
import { refundOperations, type SweptSale, sweptSales } from '../store/processor-sweep';
import { findCallByReference } from '../store/unknown-outcomes';
import { salesOfAccount } from './account-sales';
import type { PaymentDeps } from './ask';
import { needsAttention, type ProcessorSource } from './processor-attention';
import { readProcessorPayouts } from './processor-payouts';
import { fillProcessorSettlements } from './processor-settlement';
import type { ProcessorRecent, SeenCharge, SeenRefund } from './processor-said';
import { STRIPE_CARD_ID, type StripeCardGateway } from './stripe/gateway';

// The daily sweep (docs/processors.md "The daily sweep"): once a day per connected
// processor, its charges and refunds created over the last days are listed by the `created`
// window (never by search) and compared with our books, both ways; every difference is an
// attention item of the environment (processor-attention.ts), once per object, never a
// change to the books: a webhook lost for good, a payment or refund made at the processor
// by someone else, a sale of ours the processor does not have. What is still moving on our
// side (a call of unknown outcome, an action in flight) is left to the reconciliation, and
// the last hour is left out: its events and returns may still be on their way. It also reads
// the processor's figures (fee, net) of the sales still without them, and its own payouts.
// Each account is swept for its own sales only (gateway ids are per type: after a disconnect
// and a new connect, two accounts share them), with its own key; a disconnected account is
// still swept for a while (DISCONNECTED_SWEPT_DAYS), since its payments settle there still.

const HOUR_MS = 3_600_000;
/** How far back each sweep looks: three days, so a day the sweep could not run is covered by the next. */
const SWEEP_DAYS = 3;
/** The newest hour is not compared: what happened in it may still be settling. */
const SETTLING_MS = HOUR_MS;
/**
 * How long a disconnected account is still swept: a hold made just before the disconnect may
 * be captured there for 7 days (Stripe's authorization window) and its figures read by the
 * sweep, and the sweep's window looks back SWEEP_DAYS over its last days.
 */
const DISCONNECTED_SWEPT_DAYS = 7 + SWEEP_DAYS;

type SweepDeps = PaymentDeps & Pick<Deps, 'gateways'>;

/** A processor connected now is first swept a day later: what it did before it was connected is not ours to compare. */
export const firstSweep = (connected: Date) => new Date(connected.getTime() + 24 * HOUR_MS);

/** One round of the sweep job: the processors due, each swept once (the claim decides). */
export async function sweepProcessors(deps: SweepDeps, limit: number): Promise<number> {
  const now = deps.now();
  // A sweep that dies is tried again an hour later; one that ends is due again in a day.
  let swept = 0;
  const disconnectedSince = new Date(now.getTime() - DISCONNECTED_SWEPT_DAYS * 24 * HOUR_MS);
  for (const p of await claimSweeps(deps.database.db, { now, until: new Date(now.getTime() + HOUR_MS), disconnectedSince, limit })) {
    if (await sweepOne(deps, p, now)) {
      await sweepDueAt(deps.database.db, p.id, new Date(now.getTime() + 24 * HOUR_MS));
      swept++;
    }
  }
  return swept;
}

/**
 * Never before the processor was connected, nor after it was disconnected: what the account
 * did outside that time was never ours (its charges for another service, say).
 */
function windowOf(p: SweptProcessor, now: Date): { since: Date; until: Date } {
  const until = now.getTime() - SETTLING_MS;
  return {
    since: new Date(Math.max(now.getTime() - SWEEP_DAYS * 24 * HOUR_MS, Date.parse(p.created_at))),
    until: new Date(p.deleted_at === null ? until : Math.min(until, Date.parse(p.deleted_at))),
  };
}

async function sweepOne(deps: SweepDeps, p: SweptProcessor, now: Date): Promise<boolean> {
  // The account's own gateway, with its own key, connected or not (registry.ts `named`).
  const gateway = (await deps.gateways.of(p.environment_id)).find({ gateway_id: STRIPE_CARD_ID, gateway_account: p.id }) as StripeCardGateway | undefined;
  if (!gateway?.recent) return false;
  const window = windowOf(p, now);
  let recent: ProcessorRecent = { charges: [], refunds: [], complete: true };
  try {
    // SWEEP_DAYS after a disconnect the window starts after it ends: nothing the account did can be ours, so it is not asked (its figures and payouts below still are).
    if (window.since.getTime() <= window.until.getTime()) recent = await gateway.recent({ ...window, signal: AbortSignal.timeout(5 * deps.config.gatewayTimeoutMs) });
  } catch (err) {
    deps.log.warn({ processor: p.id, err }, 'processor sweep could not list the processor: tried again in an hour');
    return false;
  }
  const source: ProcessorSource = { environmentId: p.environment_id, processorId: p.id, gateway, event: null, type: 'sweep' };
  const sales = await salesOfAccount(deps, source);
  const ours = await sweptSales(deps.database.db, { ...sales, ...window });
  const differences = [...(await chargeDifferences(deps, source, sales, recent.charges, ours)), ...(await refundDifferences(deps, source, recent.refunds))];
  if (recent.complete) differences.push(...missingAtProcessor(recent.charges, ours));
  else deps.log.warn({ processor: p.id }, 'processor sweep: more than it lists at once; our sales were not checked against it');
  for (const d of differences) await needsAttention(deps, source, d);
  // Stripe's fee and net of sales whose reading after the payment failed (processor-settlement.ts).
  const settlements = await fillProcessorSettlements(deps, gateway, sales);
  // The processor's own payouts, for the Balance page (processor-payouts.ts).
  const payouts = await readProcessorPayouts(deps, gateway, p);
  deps.log.info({ processor: p.id, charges: recent.charges.length, refunds: recent.refunds.length, differences: differences.length, settlements, payouts }, 'processor swept');
  return true;
}

type Difference = { subject: string; reference: string | null; why: string };

const units = (amount: number, currency: string) => `${amount} ${currency.toUpperCase()} minor units`;

/** Whether a call of ours for `reference` is still being settled (the reconciliation's), or already with a person. */
async function stillOurs(deps: SweepDeps, source: ProcessorSource, reference: string | null): Promise<boolean> {
  const call = reference ? await findCallByReference(deps.database.db, reference) : undefined;
  return !!call && call.environment_id === source.environmentId && (call.state === 'pending' || call.state === 'attention');
}

/** A sale made just outside the window (clocks differ) for a payment the processor listed in it. */
async function olderSale(deps: SweepDeps, sales: AccountSales, payment: string): Promise<SweptSale | undefined> {
  const row = await saleOfPayment(deps.database.db, { ...sales, payment });
  return row && { id: row.id, payment, captured: row.captured, moving: row.pending + row.capturing + row.refunding + row.voiding > 0 };
}

async function chargeDifferences(deps: SweepDeps, source: ProcessorSource, sales: AccountSales, charges: SeenCharge[], ours: SweptSale[]): Promise<Difference[]> {
  const byPayment = new Map(ours.map((s) => [s.payment, s]));
  const out: Difference[] = [];
  for (const c of charges.filter((c) => c.status === 'succeeded' && c.payment)) {
    const sale = byPayment.get(c.payment!) ?? (await olderSale(deps, sales, c.payment!));
    if (!sale) {
      if (await stillOurs(deps, source, c.reference)) continue;
      out.push({ subject: c.id, reference: c.reference, why: `a charge at the processor (${units(c.amount, c.currency)}) that our books do not have` });
    } else if (!sale.moving && sale.captured !== c.captured) {
      out.push({ subject: c.id, reference: c.reference, why: `captured ${units(c.captured, c.currency)} at the processor, ${sale.captured} in our books (sale ${sale.id})` });
    }
  }
  return out;
}

async function refundDifferences(deps: SweepDeps, source: ProcessorSource, refunds: SeenRefund[]): Promise<Difference[]> {
  const ops = await refundOperations(deps.database.db, source.environmentId, refunds.map((r) => r.id));
  const out: Difference[] = [];
  for (const r of refunds) {
    const kinds = ops.get(r.id) ?? [];
    const inBooks = kinds.includes('refund') && !kinds.includes('refund_failed');
    if (r.state === 'made' && !inBooks && !(await stillOurs(deps, source, r.reference))) {
      out.push({ subject: r.id, reference: r.reference, why: `a refund at the processor (${units(r.amount, r.currency)}) that our books do not have` });
    }
    if (r.state === 'failed' && inBooks) out.push({ subject: r.id, reference: r.reference, why: `a refund that failed at the processor (${r.why}) and is still made in our books` });
  }
  return out;
}

/** Our sales of the window whose payment the processor did not list (only when it listed everything). */
function missingAtProcessor(charges: SeenCharge[], ours: SweptSale[]): Difference[] {
  const listed = new Set(charges.map((c) => c.payment));
  return ours.filter((s) => !listed.has(s.payment) && !s.moving).map((s) => ({ subject: s.id, reference: null, why: `our sale ${s.id} records a payment (${s.payment}) the processor does not list` }));
}
