import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capabilitiesOf, missingCapability } from '../../server/domain/gateway-capabilities';
import {
  actionLimit,
  allocateRefund,
  chargeMadeAfterAll,
  confirmAction,
  moveDisputed,
  releaseAction,
  releaseRestOfHold,
  removePending,
  reserveAction,
  type SaleAction,
  type SaleAmounts,
  saleStatus,
  settleCharge,
  stepAction,
  undoRefund,
} from '../../server/domain/sales';

// The sale's amounts as in-flight and confirmed parts: any interleaving of reservations,
// confirmations and releases keeps the books whole, and money moves only from what the
// processor has confirmed.

const heldSale = (amount: number): SaleAmounts => ({
  amount,
  held: amount,
  captured: 0,
  refunded: 0,
  voided: 0,
  capturing: 0,
  refunding: 0,
  voiding: 0,
  failure: null,
  pending: 0,
});

describe('sale actions from confirmed states', () => {
  it('a capture in flight is not refundable, and still counts as held, until it is confirmed', () => {
    const reserved = reserveAction('capture', heldSale(100), 60)!;
    expect(reserved).toMatchObject({ held: 40, capturing: 60, captured: 0 });
    expect(saleStatus(reserved)).toBe('held');
    expect(actionLimit('refund', reserved)).toBe(0);
    expect(reserveAction('refund', reserved, 1)).toBeNull();
    expect(reserveAction('void', reserved, 41)).toBeNull();
    const confirmed = confirmAction('capture', reserved, 60)!;
    expect(confirmed).toMatchObject({ held: 40, capturing: 0, captured: 60 });
    expect(saleStatus(confirmed)).toBe('partially_captured');
    expect(reserveAction('refund', confirmed, 60)).toMatchObject({ refunding: 60, refunded: 0 });
    expect(releaseAction('capture', reserved, 60)).toEqual(heldSale(100));
  });

  it('any interleaving keeps every amount ≥ 0, the sale whole, and refunds within confirmed captures', () => {
    const op = fc.record({
      step: fc.constantFrom('reserve', 'confirm', 'release'),
      action: fc.constantFrom<SaleAction>('capture', 'refund', 'void'),
      amount: fc.integer({ min: 1, max: 120 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let s = heldSale(100);
        /** Reservations not yet confirmed or released, as a store would hold them in its calls. */
        const open: { action: SaleAction; amount: number }[] = [];
        for (const o of ops) {
          if (o.step === 'reserve') {
            const next = reserveAction(o.action, s, o.amount);
            if (next) {
              s = next;
              open.push({ action: o.action, amount: o.amount });
            }
            continue;
          }
          const call = open.shift();
          if (!call) continue;
          const next = (o.step === 'confirm' ? confirmAction : releaseAction)(call.action, s, call.amount);
          expect(next).not.toBeNull();
          s = next!;
        }
        for (const v of [s.held, s.captured, s.refunded, s.voided, s.capturing, s.refunding, s.voiding]) expect(v).toBeGreaterThanOrEqual(0);
        expect(s.held + s.capturing + s.captured + s.voiding + s.voided).toBe(100);
        expect(s.refunded + s.refunding).toBeLessThanOrEqual(s.captured);
      }),
    );
  });
});

describe('the other changes of a sale', () => {
  const captured = { ...heldSale(100), held: 0, captured: 100 };

  it('a failed charge moves nothing, whatever the step', () => {
    const declined = { ...heldSale(100), failure: 'declined' };
    for (const step of ['reserve', 'confirm', 'release'] as const) expect(stepAction('void', step, { ...declined, voiding: 10 }, 10)).toBeNull();
    expect(stepAction('void', 'reserve', heldSale(100), 10)).toMatchObject({ held: 90, voiding: 10 });
  });

  it('a refund that failed after it was confirmed is refundable again, never more than was refunded', () => {
    const refunded = { ...captured, refunded: 30 };
    expect(undoRefund(refunded, 30)).toMatchObject({ refunded: 0 });
    expect(actionLimit('refund', undoRefund(refunded, 30)!)).toBe(100);
    expect(undoRefund(refunded, 31)).toBeNull();
  });

  it('disputes take only what is captured and neither refunded nor being refunded, and give back no more than they took', () => {
    const partly = { ...captured, refunded: 30, refunding: 20 };
    expect(moveDisputed(partly, 50)).toMatchObject({ disputed: 50 });
    expect(moveDisputed(partly, 51)).toBeNull();
    expect(actionLimit('refund', moveDisputed(partly, 50)!)).toBe(0);
    expect(moveDisputed({ ...partly, disputed: 50 }, -50)).toMatchObject({ disputed: 0 });
    expect(moveDisputed({ ...partly, disputed: 50 }, -51)).toBeNull();
  });

  it('a gateway that captures once: its capture releases the rest, and no second capture is reserved while one is made or in flight', () => {
    const once = capabilitiesOf({ capabilities: { repeatedCapture: false } });
    const inFlight = reserveAction('capture', heldSale(100), 60)!;
    expect(missingCapability(once, 'capture', heldSale(100), 60)).toBeNull();
    expect(missingCapability(once, 'capture', inFlight, 10)).toBe('repeatedCapture');
    expect(missingCapability(once, 'capture', inFlight, 'all')).toBe('repeatedCapture');
    expect(missingCapability(capabilitiesOf({}), 'capture', inFlight, 10)).toBeNull();
    // A void in flight beside it keeps its own amount; only the free hold is released.
    const captured = confirmAction('capture', reserveAction('void', inFlight, 15)!, 60)!;
    const released = releaseRestOfHold(captured)!;
    expect(released).toMatchObject({ held: 0, captured: 60, voided: 25, voiding: 15 });
    expect(missingCapability(once, 'void', released, 'all')).toBeNull();
    expect(releaseRestOfHold(released)).toBeNull();
    expect(saleStatus(confirmAction('void', released, 15)!)).toBe('captured');
  });

  it('a pending sale is settled once; a charge made after all is captured without its failure', () => {
    const pending = { ...heldSale(100), held: 0, pending: 1 };
    expect(saleStatus(pending)).toBe('pending');
    const settled = settleCharge(pending, { captured: 100, failure: null })!;
    expect(saleStatus(settled)).toBe('captured');
    expect(settleCharge(settled, { captured: 0, failure: 'declined' })).toBeNull();
    expect(removePending(settled)).toBeNull();
    expect(saleStatus(chargeMadeAfterAll({ ...heldSale(100), held: 0, failure: 'not_processed' }, 100))).toBe('captured');
  });
});

describe('a refund of a source payment\'s sale, split over its sources', () => {
  it('takes the cards first in order, then the wallets in order, each up to what it has left', () => {
    const sources = [
      { position: 0, kind: 'wallet' as const, refundable: 600 },
      { position: 1, kind: 'card' as const, refundable: 400 },
      { position: 2, kind: 'wallet' as const, refundable: 300 },
      { position: 3, kind: 'card' as const, refundable: 400 },
    ];
    expect(allocateRefund(sources, 600)).toEqual([
      { position: 1, kind: 'card', amount: 400 },
      { position: 3, kind: 'card', amount: 200 },
    ]);
    expect(allocateRefund(sources, 1000)).toEqual([
      { position: 1, kind: 'card', amount: 400 },
      { position: 3, kind: 'card', amount: 400 },
      { position: 0, kind: 'wallet', amount: 200 },
    ]);
    expect(allocateRefund(sources, 1701)).toBeNull();
    expect(allocateRefund(sources, 0)).toBeNull();
  });

  it('gives exactly the amount, no source past what it has left, and a later source only once the ones before it give nothing more', () => {
    const source = fc.record({ kind: fc.constantFrom('card' as const, 'wallet' as const), refundable: fc.integer({ min: 0, max: 10_000 }) });
    fc.assert(
      fc.property(fc.array(source, { maxLength: 8 }), fc.integer({ min: 1, max: 90_000 }), (list, amount) => {
        const sources = list.map((s, position) => ({ ...s, position }));
        const total = sources.reduce((a, s) => a + s.refundable, 0);
        const parts = allocateRefund(sources, amount);
        if (amount > total) {
          expect(parts).toBeNull();
          return;
        }
        expect(parts!.reduce((a, p) => a + p.amount, 0)).toBe(amount);
        const order = [...sources.filter((s) => s.kind === 'card'), ...sources.filter((s) => s.kind === 'wallet')];
        const given = order.map((s) => parts!.find((p) => p.position === s.position)?.amount ?? 0);
        order.forEach((s, i) => {
          expect(given[i]).toBeLessThanOrEqual(s.refundable);
          // A source gives something only when every source before it gave all it had.
          if (given[i]! > 0) order.slice(0, i).forEach((b, j) => expect(given[j]).toBe(b.refundable));
        });
      }),
    );
  });
});
