import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { type Action, type Paid, type ProcessorUnderTest } from './processors';
import { type ProcessorShop, SETTLE_WINDOW_MS, useProcessorShop } from './processor-shop';

// The real-process fault matrix with the real processors' connectors (`npm run test:faults`
// runs it whole; `npm test`'s process tier one case per fault kind per processor): the
// service as a process with its jobs on, Stripe or Redsys connected through the processors
// API against its test double, and a fault on each money route:
// - the service SIGKILLed before the processor acts (`kill-before`: the double holds the
//   request, and cuts it unanswered once the service is dead), while the processor holds its
//   answer after acting (`kill-during`), or after the result is on our books (`kill-after`);
// - the processor acts and its answer is lost (`lose`: the connection is cut; `fail-after`:
//   a 500), or refuses before acting (`refuse`).
// Its notifications (Stripe's events) come late in every case but `kill-after`: once the
// service has settled the call by asking the processor, and they change nothing more.
// The payment routes (by redirect, where the processor's notification and the customer's
// return settle it) are in payment-faults.ts. After each case the processor's books for the
// payment and ours agree (captured, held, refunded), the action was carried out at most
// once, a keyed retry answers the same result without asking the processor again, and no
// call is left pending; where nothing can prove the outcome (Redsys without its query
// service) the call is in `attention` and was never sent again.

export const ACTION_FAULTS = ['kill-before', 'kill-during', 'kill-after', 'lose', 'fail-after', 'refuse'] as const;
export type ActionFault = (typeof ACTION_FAULTS)[number];
/**
 * Redsys only: SIGKILL after the action's reservation, while the query service holds the
 * count taken before sending (so before the count is kept, and before the operation is sent).
 */
export type CountingFault = 'kill-counting';
const POLL = { timeout: 60_000, interval: 250 };

/** A refund takes 5.00 of a captured 17.00; a capture or a void takes all of a held 17.00. */
const AMOUNT: Record<Action, number> = { capture: 17, refund: 5, void: 17 };
const minor = (major: number) => Math.round(major * 100);

/** What our API says of the sale, in the processor's terms. */
async function ours(shop: ProcessorShop, sale: string) {
  const s = (await shop.api.get(`/sale/${sale}/`)).body;
  return { captured: minor(s.captured), held: minor(s.held), refunded: minor(s.refunded) };
}

/** How a case should end: the action carried out once or not at all, and settled by our books or left for a person. */
export interface Expected {
  acted: boolean;
  attention: boolean;
}

/** What each fault leaves, unless the processor says otherwise (`expect` of the matrix's caller). */
const expectedOf = (fault: ActionFault | CountingFault): Expected => ({ acted: !['kill-before', 'kill-counting', 'refuse'].includes(fault), attention: false });

/**
 * Redsys carries an operation out again when it is sent again, so an unknown one is only
 * settled by the query service's count against the one taken before it was sent (kept in
 * the database, so a kill before or during is settled after the restart too). Without the
 * query service nothing can settle it: to attention, never sent again.
 */
export const redsysExpected =
  (queryService: boolean) =>
  (_action: Action, fault: ActionFault | CountingFault): Expected => {
    const unknown = !queryService && ['kill-before', 'kill-during', 'lose', 'fail-after'].includes(fault);
    return { ...expectedOf(fault), attention: unknown };
  };

/** What a case runs against: the processor and a shop connected to it, on one engine. */
export interface Bench<P extends ProcessorUnderTest = ProcessorUnderTest> {
  p: P;
  shop: ProcessorShop;
  /** Sales whose call a person must look at (pending until then). */
  forAPerson: Set<string>;
}

/** Per engine, a processor's double and one shop connected to it for the cases `register` adds (they share it, each on payments of its own). */
export function withProcessor<P extends ProcessorUnderTest>(processor: () => P, register: (bench: Bench<P>) => void) {
  describe.each(ENGINES)('%s', (engine) => {
    const p = processor();
    beforeAll(() => p.start());
    afterAll(() => p.close());
    const shop = useProcessorShop(engine, { env: () => p.env(), connect: (api) => p.connect(api) });
    register({ p, shop, forAPerson: new Set() });
  });
}

/**
 * Each fault of `faults` on `action`. `expected` says how a case ends where the processor
 * differs from `expectedOf` (Redsys's operations are not idempotent: without its query
 * service nothing it says can tell ours from another).
 */
export function actionCases(
  { p, shop, forAPerson }: Bench,
  action: Action,
  faults: readonly (ActionFault | CountingFault)[] = ACTION_FAULTS,
  expected: (action: Action, fault: ActionFault | CountingFault) => Expected = (_a, f) => expectedOf(f),
) {
  describe(`${p.name} ${action}`, () => {
    it.each(faults)('%s', { timeout: 120_000 }, async (fault) => {
      const paid = await p.pay(shop, action !== 'refund');
      const before = p.books(paid.handle);
      const key = `fault-${action}-${fault}-${paid.sale}`;
      const act = () => shop.api.post(`/sale/${paid.sale}/${action}/`, action === 'refund' ? { amount: AMOUNT[action] } : {}, { 'idempotency-key': key });
      const sentBefore = p.sent(action, paid.handle);
      // What the processor tells by notification comes late: the service settles the call by asking it.
      if (fault !== 'kill-after') p.holdNotifications();

      if (fault === 'kill-before' || fault === 'kill-during' || fault === 'kill-counting') {
        const held = fault === 'kill-counting' ? p.holdCount!() : p.hold(action, fault === 'kill-during');
        const answer = act().catch(() => null);
        await held.arrived;
        await shop.kill(async () => {
          await answer;
          held.release();
        });
      } else if (fault === 'kill-after') {
        const answer = await act();
        expect(answer.status, answer.text).toBe(200);
        await shop.kill();
      } else {
        if (fault === 'refuse') p.refuse(action);
        else p.lose(action, fault === 'lose' ? 'cut' : '500');
        const answer = await act();
        // Refused: a 502 and nothing moves; lost: unknown, accepted with the amount reserved.
        expect(answer.status, answer.text).toBe(fault === 'refuse' ? 502 : 202);
      }

      const end = expected(action, fault);
      await settle(shop, paid, end);
      await p.sendNotifications();
      const books = p.books(paid.handle);
      const moved = end.acted ? 1 : 0;
      expect(books.done[action] - before.done[action], 'carried out at the processor').toBe(moved);
      if (end.attention) {
        // Left for a person: never sent again after its outcome became unknown.
        expect(p.sent(action, paid.handle) - sentBefore).toBe(1);
        expect((await shop.calls(paid.sale)).filter((c) => c.kind === action).map((c) => c.state)).toEqual(['attention']);
        forAPerson.add(paid.sale);
        return await booksAgree(shop, forAPerson);
      }
      const agree = async () => {
        const { captured, held, refunded } = p.books(paid.handle);
        expect(await ours(shop, paid.sale)).toEqual({ captured, held, refunded });
      };
      await agree();
      // The same key, later: the same result, the processor not asked again (one not carried out may be sent again, as any 502's; the books still agree).
      shop.advance(120_000);
      const sent = p.sent(action, paid.handle);
      const again = await act();
      if (end.acted) {
        expect(again.status, again.text).toBe(200);
        expect(p.sent(action, paid.handle)).toBe(sent);
        expect(p.books(paid.handle)).toEqual(books);
      }
      await settle(shop, paid, end);
      await agree();
      await booksAgree(shop, forAPerson);
    });
  });
}

/** Moves the service's clock on until the fault's call is settled: by our books, or sent to attention. */
async function settle(shop: ProcessorShop, paid: Paid, end: Expected): Promise<void> {
  await expect
    .poll(async () => {
      // Time passes for the service: past the claim, the settle window and each recheck's wait.
      shop.advance(SETTLE_WINDOW_MS);
      const states = (await shop.calls(paid.sale)).map((c) => c.state);
      return end.attention ? states.includes('attention') : !states.includes('pending') && !states.includes('attention');
    }, POLL)
    .toBe(true);
}

/** No sale of the shop is left pending but those waiting for a person, and no key in the processes' output. */
export async function booksAgree(shop: ProcessorShop, forAPerson: ReadonlySet<string>): Promise<void> {
  const sales = (await shop.api.get('/sale/?page_size=100')).body.results as { id: string; status: string }[];
  expect(sales.filter((s) => s.status === 'pending' && !forAPerson.has(s.id))).toEqual([]);
  const log = shop.processes.flatMap((s) => [...s.output, s.stderr()]).join('\n');
  expect(log).not.toMatch(/sk_test_FAKE|whsec_FAKE/);
}
