import { exponentOf } from '../domain/currencies';
import { uuidv7 } from '../domain/ids';
import { unitsToDecimalString } from '../domain/money';
import { actionLimit, allocateRefund, type RefundPart } from '../domain/sales';
import type { OperationReason } from '../domain/payment-reference';
import { type Db, Rollback, rollbackOn, type Tx } from '../store/db';
import type { Outbox } from '../store/events';
import { type GatewayCall, insertCall, newCall } from '../store/gateway-calls';
import { moveAmounts } from '../store/sale-aggregate';
import { addOperation } from '../store/sale-operations';
import { getSale, saleRow } from '../store/sales';
import type { SaleRow, SourceRefundRow } from '../store/schema';
import { boundCalls, giveBackToSource, insertSourceRefund, type PlannedPart, sourceRefundOf, sourcesOfSales } from '../store/source-sales';
import { getCall } from '../store/unknown-outcomes';
import type { PaymentDeps } from './ask';
import { takeBackDestinations } from './destinations';
import { type Bound, resumeStep } from './outcome';
import { type ActionAmount, type SaleActionOutcome, sendSaleAction } from './send-action';

// A refund of the sale of a transaction paid from its `source` (payments/sources.ts),
// back to its sources: the cards first, in the transaction's order, then the wallets
// (domain/sales.ts allocateRefund says why). It is reserved whole in one database
// transaction (reserveSourceRefund, below): each card's part on its charge with the gateway
// call that will make it, each wallet's part given back at once; each part takes the
// destinations' split back. Then each card's part is sent to its gateway as any refund is
// (send-action.ts): refused, it is released and refundable again; unknown, it stays
// pending until reconciliation proves it. Under an Idempotency-Key the refund is bound to
// the key: a repeat rolls it forward (each card's call is a step of the key, resent with
// the same reference), never reserving another.

/** How often the parts are planned again when a source's amounts moved under a concurrent refund. */
const PLANS = 3;

export async function refundSourceSale(deps: PaymentDeps, a: { sale: SaleRow; amount: ActionAmount; bound?: Bound; reason?: OperationReason }): Promise<SaleActionOutcome> {
  const db = deps.database.db;
  if (a.bound) {
    const earlier = await sourceRefundOf(db, a.bound.binding);
    if (earlier) return rollForward(deps, earlier);
  }
  for (let plan = 0; plan < PLANS; plan++) {
    // All of it: what is refundable as each plan reads it.
    const amount = a.amount === 'all' ? actionLimit('refund', (await saleRow(db, a.sale.id))!) : a.amount;
    if (amount <= 0) return { kind: 'conflict' };
    const sources = (await sourcesOfSales(db, [a.sale.id])).get(a.sale.id) ?? [];
    const parts = allocateRefund(
      sources.map((s) => ({ position: s.position, kind: s.charge ? 'card' : 'wallet', refundable: s.refundable })),
      amount,
    );
    if (!parts) return { kind: 'conflict' };
    const now = deps.now();
    const refund: SourceRefundRow = {
      id: uuidv7(now.getTime()),
      environment_id: a.sale.environment_id,
      sale_id: a.sale.id,
      binding: a.bound?.binding ?? null,
      amount,
      created_at: now.toISOString(),
    };
    // Each card's call is a step of the key, in the parts' order.
    const steps = parts.filter((p) => p.kind === 'card').map((p) => p.position);
    const planned = await Promise.all(
      parts.map(async (part): Promise<PlannedPart> => {
        const source = sources.find((s) => s.position === part.position)!;
        if (!source.charge) return { ...part, wallet: source.wallet_id! };
        // The charge's own gateway reference: its first operation made it.
        const first = (await getSale(db, null, source.charge.id))?.operations[0];
        const call = newCall({
          environmentId: a.sale.environment_id,
          gateway: { id: source.charge.gateway_id, account: source.charge.gateway_account },
          kind: 'refund',
          subjectId: source.charge.id,
          amount: part.amount,
          currency: a.sale.currency,
          request: { source_sale: a.sale.id, source_refund: refund.id, position: part.position, payment: first?.gateway_reference ?? '', ...(a.reason ? { merchant_reason: a.reason } : {}) },
          now,
          claimMs: deps.config.paymentClaimMs,
          bound: a.bound && { binding: a.bound.binding, step: steps.indexOf(part.position) },
        });
        return { ...part, call };
      }),
    );
    const reserved = await reserveSourceRefund(db, { refund, parts: planned, now, outbox: deps.outbox, reason: a.reason ?? null });
    if (reserved.kind === 'conflict') return { kind: 'conflict' };
    if (reserved.kind === 'moved') continue;
    const calls = planned.flatMap((p) => ('call' in p ? [p.call] : []));
    const reasons = new Map<string, string>();
    for (const call of calls) {
      const sent = await sendSaleAction(deps, call);
      if (sent.kind === 'gateway_failed') reasons.set(call.id, sent.reason);
    }
    return outcomeOf(deps, refund, calls, reasons);
  }
  return { kind: 'conflict' };
}

/**
 * A repeat of the key of a refund already reserved: each card's call that its process
 * left unsent (its claim ran out) is sent again with the same reference; one still being
 * sent is a 409; then the refund is answered as it stands.
 */
async function rollForward(deps: PaymentDeps, refund: SourceRefundRow): Promise<SaleActionOutcome> {
  const db = deps.database.db;
  const calls: GatewayCall[] = [];
  for (const { step } of await boundCalls(db, refund.binding!)) {
    const resume = await resumeStep(deps, { binding: refund.binding!, step: step! });
    if (resume.kind === 'in_flight') return resume;
    if (resume.kind === 'resend') await sendSaleAction(deps, resume.call);
    if (resume.kind === 'resend' || resume.kind === 'current') calls.push(resume.call);
  }
  return outcomeOf(deps, refund, calls, new Map());
}

/**
 * The answer to a refund once its parts were sent: done, or pending while a card's part
 * has an unknown outcome; a card's part its gateway refused was released (refundable
 * again): nothing changed if it was the whole refund, a partial refund otherwise.
 */
async function outcomeOf(deps: PaymentDeps, refund: SourceRefundRow, calls: GatewayCall[], reasons: Map<string, string>): Promise<SaleActionOutcome> {
  const db = deps.database.db;
  const states = await Promise.all(calls.map(async (c) => (await getCall(db, c.id)) ?? c));
  const refused = states.filter((c) => c.state === 'failed' || c.state === 'abandoned' || c.state === 'reversed');
  const sale = (await getSale(db, null, refund.sale_id))!;
  const pending = states.some((c) => c.state === 'pending' || c.state === 'attention');
  if (!refused.length) return pending ? { kind: 'pending', sale } : { kind: 'done', sale };
  const fmt = (units: number) => `${unitsToDecimalString(units, exponentOf(sale.row.currency))} ${sale.row.currency}`;
  const why = refused
    .map((c) => `source.${String(c.request.position)} (${fmt(c.amount)}): ${reasons.get(c.id) ?? 'the gateway did not make it'}`)
    .join('; ');
  const lost = refused.reduce((sum, c) => sum + c.amount, 0);
  if (lost === refund.amount) return { kind: 'gateway_failed', reason: why };
  return { kind: 'partial', sale, amount: refund.amount, refused: lost, reason: why };
}

type SourceReservation =
  | { kind: 'reserved' }
  /** The sale's own rule refuses it: it has not that much left to refund. */
  | { kind: 'conflict' }
  /** A source's amounts moved since the parts were planned: plan again. */
  | { kind: 'moved' };

/**
 * Reserves a refund of a source payment's sale, all or nothing: for each part in order,
 * the sale's amount (the sale's rule, a conditional update), then a card's part on its
 * charge with its call, or a wallet's part given back at once (credited, confirmed on the
 * sale with its operation and event); each part takes the destinations' split back.
 */
function reserveSourceRefund(db: Db, r: { refund: SourceRefundRow; parts: PlannedPart[]; now: Date; outbox: Outbox; reason: OperationReason | null }): Promise<SourceReservation> {
  const saleId = r.refund.sale_id;
  return rollbackOn<SourceReservation, SourceReservation>(db, async (trx) => {
    for (const part of r.parts) {
      if (!(await moveAmounts(trx, saleId, 'refund', 'reserve', part.amount, r.now))) throw new Rollback({ kind: 'conflict' });
      const sale = (await saleRow(trx, saleId))!;
      if ('call' in part) {
        if (!(await moveAmounts(trx, part.call.subject_id, 'refund', 'reserve', part.amount, r.now))) throw new Rollback({ kind: 'moved' });
        await insertCall(trx, part.call);
        await takeBackDestinations(trx, r.outbox, { sale, amount: part.amount, movementId: part.call.id, now: r.now });
        continue;
      }
      await giveBackToWallet(trx, r.outbox, { sale, part, now: r.now, reason: r.reason });
    }
    await insertSourceRefund(trx, r.refund);
    return { kind: 'reserved' };
  });
}

/** A wallet's part of a refund, made at once: counted on its source, credited to it, confirmed on the sale. */
async function giveBackToWallet(trx: Tx, outbox: Outbox, p: { sale: SaleRow; part: RefundPart & { wallet: string }; now: Date; reason: OperationReason | null }) {
  const { sale, part, now } = p;
  if (!(await giveBackToSource(trx, sale.id, part.position, part.amount))) throw new Rollback({ kind: 'moved' });
  const movementId = uuidv7(now.getTime());
  await takeBackDestinations(trx, outbox, { sale, amount: part.amount, movementId, now, to: { wallet: part.wallet } });
  if (!(await moveAmounts(trx, sale.id, 'refund', 'confirm', part.amount, now))) throw new Error(`sale ${sale.id}: no refund in flight to confirm`);
  await addOperation(trx, sale.id, 'refund', part.amount, null, now, movementId, p.reason);
  await outbox.emit(trx, 'sale.refunded', sale.id, now);
}
