import { describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { payWithCard, priced } from '../api/pay';
import { processScope, type ServiceProcess, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { type Act, type Processor, type ProcessorMode, remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// The real-process fault matrix (`npm run test:faults` runs it whole, `npm test` one route):
// service processes with the jobs on move money through a version 1 gateway module whose
// processor runs in the test process and keeps its own books (test/api/processor.ts), and
// a fault strikes each money route:
// - the service is SIGKILLed before the gateway acts (`kill-before`: the processor stalls
//   and never acts), while the processor holds its answer (`kill-during`), or after the
//   result is on our books (`kill-after`: the client never reads the answer);
// - the processor acts and loses the answer (`lose`), acts only after the service gave up
//   (`late`: lookups say `not_found` first), acts and tells only by a notification to
//   `POST /gateways/{code}/notify` (`notify-later`: its lookups never find it), refuses
//   before acting with a 400 (`refuse`: a version 1 module can only throw, so the outcome
//   is unknown until the settle window proves it) or declines.
// Keyed routes are then retried with the same Idempotency-Key (a crash before the call is
// rolled forward by that retry: the same step, the same reference). After each case an
// invariant checker compares the processor's books with the API's.

const SETTLE_WINDOW_MS = 12_000;
export const FAULTS = ['kill-before', 'kill-during', 'kill-after', 'lose', 'late', 'notify-later', 'refuse', 'decline'] as const;
type Fault = (typeof FAULTS)[number];
export const FAULT_ROUTES = ['hosted pay', 'hosted authorize', 'charge', 'capture', 'refund', 'void', 'store', 'subscription charge'] as const;
type RouteName = (typeof FAULT_ROUTES)[number];
const CARD_DIGITS = '4242424242424242';
const CARD = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'A' };
const POLL = { timeout: 60_000, interval: 500 };

const MODE: Record<Fault, ProcessorMode> = {
  'kill-before': 'stall',
  'kill-during': 'hold',
  'kill-after': 'ok',
  lose: 'lose',
  late: 'late',
  'notify-later': 'notify',
  refuse: 'refuse',
  decline: 'decline',
};

/** What a case reaches the service with (the current process: a killed one is replaced). */
interface Ctx {
  url(): string;
  api(path: string, body?: unknown): Promise<any>;
  request(path: string, body: unknown, key?: string): Promise<Response>;
}

/** One money route, as the matrix drives it. */
interface RouteCase {
  /** The processor path its gateway call takes. */
  path: Act['path'];
  /** true: the request carries an Idempotency-Key, and is retried with it. */
  keyed: boolean;
  /** What the route acts on, made before the fault (with the processor behaving). */
  setup(c: Ctx): Promise<void>;
  /** The request the fault strikes. */
  act(c: Ctx): Promise<Response>;
  /** Its answer, when the process lives. */
  firstAnswer(res: Response, fault: Fault): Promise<void>;
  /** The result is on our books (for `kill-after`). */
  recorded(c: Ctx): Promise<boolean>;
  /** Waits until the outcome is settled: what the processor did (`acted`), or nothing. */
  settled(c: Ctx, acted: boolean, fault: Fault): Promise<void>;
  /** A retry with the same key, once settled: the same object (checked when `acted`). */
  retried?(res: Response, acted: boolean): Promise<void>;
}

const json = async (res: Response) => (await res.json()) as any;

function routeCase(name: RouteName): RouteCase {
  let token = '';
  let transaction = '';
  let authorization = '';
  let sale = '';
  let subscription = '';
  const keyed = (path: string, body: unknown) => (c: Ctx) => c.request(path, body, `fault-${name}`);
  const chargesOf = async (c: Ctx) =>
    ((await c.api(`/sale/?authorization_id=${authorization}`)).results as { id: string; transaction_id: string | null; status: string }[]).filter(
      (s) => s.transaction_id === null,
    );
  const storedCards = async (c: Ctx) => ((await c.api('/authorization/?page_size=100')).results as { id: string; transaction_id: string | null; status: string }[]).filter((a) => a.transaction_id === null);
  const created = async (c: Ctx, authorize: boolean, pay: boolean) => {
    const tx = await c.api('/transaction/', priced('EUR', 25, { authorize }));
    token = tx.token;
    transaction = tx.id;
    if (!pay) return;
    await payWithCard(c.url(), token, undefined, REMOTE_ID);
    const [first] = (await c.api(`/sale/?transaction_id=${transaction}`)).results;
    sale = first.id;
    authorization = first.authorization_id ?? '';
  };
  const pendingOr = (decline: number) => async (res: Response, fault: Fault) => expect(res.status, await res.clone().text()).toBe(fault === 'decline' ? decline : 202);

  switch (name) {
    case 'hosted pay':
    case 'hosted authorize':
      return {
        path: '/pay',
        keyed: false,
        // An authorize-only transaction: the processor holds the money, the sale is `held`.
        setup: (c) => created(c, name === 'hosted authorize', false),
        act: (c) => payWithCard(c.url(), token, undefined, REMOTE_ID),
        async firstAnswer(res, fault) {
          expect((await json(res)).view.status).toBe(fault === 'decline' ? 'declined' : 'checking');
        },
        recorded: async (c) => (await c.api(`/transaction/${transaction}/`)).status === 'D',
        async settled(c, acted) {
          const screen = async () => {
            const html = await (await fetch(`${c.url()}/pay/${token}/`)).text();
            const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)!;
            return (JSON.parse(state[1]!) as { view: { status: string } }).view.status;
          };
          // Not charged: payable again (no longer "checking").
          await expect.poll(screen, POLL).toBe(acted ? 'paid' : 'pending');
          expect((await c.api(`/transaction/${transaction}/`)).status).toBe(acted ? 'D' : 'N');
        },
      };
    case 'charge':
      return {
        path: '/pay',
        keyed: true,
        setup: (c) => created(c, true, true),
        act: (c) => keyed(`/authorization/${authorization}/charge/`, { amount: 4, currency: 'EUR' })(c),
        firstAnswer: pendingOr(402),
        recorded: async (c) => (await chargesOf(c)).some((s) => s.status === 'captured'),
        async settled(c, acted, fault) {
          const expected = acted ? 'captured' : fault === 'decline' ? 'declined' : 'failed';
          await expect.poll(async () => (await chargesOf(c)).map((s) => s.status), POLL).toEqual([expected]);
          sale = (await chargesOf(c))[0]!.id;
        },
        async retried(res, acted) {
          if (!acted) return;
          expect(res.status).toBe(201);
          expect((await json(res)).id).toBe(sale);
        },
      };
    case 'capture':
    case 'refund':
    case 'void': {
      // A refund takes 5 of a captured 25; a capture or a void takes all of a held 25.
      const refund = name === 'refund';
      const amount = refund ? 5 : 25;
      const movedField = ({ capture: 'captured', refund: 'refunded', void: 'voided' } as const)[name];
      /** What the action moved, and what is still free for it (back in full once a reservation that did not act is released). */
      const moved = async (c: Ctx) => {
        const s = await c.api(`/sale/${sale}/`);
        return { pending: s.status === 'pending', moved: s[movedField] as number, free: (refund ? s.refundable : s.held) as number };
      };
      return {
        path: `/${name}`,
        keyed: true,
        setup: (c) => created(c, !refund, true),
        act: (c) => keyed(`/sale/${sale}/${name}/`, refund ? { amount } : {})(c),
        firstAnswer: pendingOr(502),
        recorded: async (c) => (await moved(c)).moved > 0,
        async settled(c, acted) {
          // A call whose process died shows as in flight until reconciliation takes it: wait for its end, not for "not pending".
          const expected = { pending: false, moved: acted ? amount : 0, free: acted ? 25 - amount : 25 };
          await expect.poll(() => moved(c), POLL).toEqual(expected);
        },
        async retried(res, acted) {
          if (!acted) return;
          expect(res.status).toBe(200);
          const body = await json(res);
          expect([body.id, body[movedField]]).toEqual([sale, amount]);
        },
      };
    }
    case 'store':
      return {
        path: '/store',
        keyed: true,
        setup: async () => {},
        act: keyed('/authorization/', { gateway: REMOTE_ID, card: CARD }),
        firstAnswer: pendingOr(402),
        recorded: async (c) => (await storedCards(c)).some((a) => a.status === 'active'),
        async settled(c, acted) {
          // A store whose process died shows nothing until reconciliation takes it: wait for its end, not for "not pending".
          const settledCards = async () => (await storedCards(c)).map((a) => a.status).filter((st) => st !== 'failed');
          await expect.poll(settledCards, POLL).toEqual(acted ? ['active'] : []);
          const active = (await storedCards(c)).filter((a) => a.status === 'active');
          authorization = active[0]?.id ?? '';
        },
        async retried(res, acted) {
          if (!acted) return;
          expect(res.status).toBe(201);
          expect((await json(res)).id).toBe(authorization);
        },
      };
    case 'subscription charge': {
      const charges = async (c: Ctx) => (await c.api(`/subscription/${subscription}/`)).charges as { status: string }[];
      return {
        path: '/pay',
        keyed: false,
        async setup(c) {
          const card = await c.api('/authorization/', { gateway: REMOTE_ID, card: CARD });
          const plan = await c.api('/plan/', { name: 'Daily pass', amount: 1.5, currency: 'EUR', interval: 'day' });
          subscription = (await c.api('/subscription/', { plan: plan.id, authorization: card.id })).id;
        },
        // Started, its first period is due at once: the scheduler (a job) charges it.
        act: (c) => c.request(`/subscription/${subscription}/start/`, {}),
        async firstAnswer(res) {
          expect(res.status).toBe(200);
        },
        recorded: async (c) => (await charges(c))[0]?.status === 'charged',
        async settled(c, acted) {
          await expect.poll(async () => (await charges(c)).map((ch) => ch.status), POLL).toEqual([acted ? 'charged' : 'failed']);
        },
      };
    }
  }
}

/** Whether the processor ends up having done what was asked. */
function acts(route: RouteCase, routeName: RouteName, fault: Fault): boolean {
  if (fault === 'decline') return false;
  // Not acted, then proven not made: a subscription's period is due again and charged by a new attempt.
  if (routeName === 'subscription charge') return true;
  if (fault === 'refuse') return false;
  // A crash before the call: a keyed request's retry sends the same step; a payment's is proven not made.
  if (fault === 'kill-before') return route.keyed;
  return true;
}

const minor = (major: number) => Math.round(major * 100);

/**
 * The books agree: what the processor took, held and gave back is what the sales say; the
 * cards it stored are our authorizations; nothing is pending; the fault's route made at
 * most one gateway action; no card number in any process's output.
 */
async function checkInvariants(p: { processor: Processor; api: Ctx['api']; processes: ServiceProcess[]; since: number; path: Act['path'] }) {
  const sales = (await p.api('/sale/?page_size=100')).results as { status: string; gateway: string; captured: number; held: number; refunded: number }[];
  expect(sales.filter((s) => s.status === 'pending')).toEqual([]);
  const ours = sales.filter((s) => s.gateway === REMOTE_ID);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const acts = p.processor.acts;
  const total = (path: Act['path'], capture?: boolean) => sum(acts.filter((a) => a.path === path && (capture === undefined || a.capture === capture)).map((a) => a.amount));
  expect({
    captured: sum(ours.map((s) => minor(s.captured))),
    held: sum(ours.map((s) => minor(s.held))),
    refunded: sum(ours.map((s) => minor(s.refunded))),
  }).toEqual({
    captured: total('/pay', true) + total('/capture'),
    held: total('/pay', false) - total('/capture') - total('/void'),
    refunded: total('/refund'),
  });
  const cards = ((await p.api('/authorization/?page_size=100')).results as { transaction_id: string | null; status: string }[]).filter((a) => a.transaction_id === null);
  expect(cards.filter((a) => a.status === 'pending')).toEqual([]);
  expect(cards.filter((a) => a.status === 'active' || a.status === 'removed')).toHaveLength(acts.filter((a) => a.path === '/store').length);
  expect(acts.slice(p.since).filter((a) => a.path === p.path).length).toBeLessThanOrEqual(1);
  const log = p.processes.flatMap((s) => [...s.output, s.stderr()]).join('\n');
  expect(log.replace(/\s/g, '')).not.toContain(CARD_DIGITS);
}

/** Every fault kind on each of `routes`, per engine. */
export function faultMatrix(routes: readonly RouteName[], faults: readonly Fault[] = FAULTS) {
  const { cleanup, environment, started } = processScope();
  describe.each(ENGINES)('money faults on %s', (engine) => {
    describe.each(routes)('%s', (routeName) => {
      it.each(faults)('%s', { timeout: 150_000 }, async (fault) => {
        const route = routeCase(routeName);
        const processor = await startProcessor();
        cleanup(() => processor.close());
        const base = await environment(engine, remoteGatewayEnv(processor, { timeoutMs: 1_000, claimMs: 2_000 }));
        const clock = testClock(base.DATA_DIR);
        const env = {
          ...base,
          ...clock.env,
          BACKGROUND_WORK: 'true',
          PAYMENT_SETTLE_WINDOW_MS: String(SETTLE_WINDOW_MS),
          SUBSCRIPTION_CLAIM_MS: '4000',
          // The sandbox's books kept out of our database, like the stand-in processor's (issue 49).
          SANDBOX_BOOKS: 'memory',
        };
        const keys = await createShopKeys('Faults shop', env);
        const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
        const processes: ServiceProcess[] = [];
        let service = await started(env);
        processes.push(service);
        const ctx: Ctx = {
          url: () => service.url,
          request: (path, body, key) =>
            fetch(`${service.url}/v1${path}`, { method: 'POST', headers: key ? { ...headers, 'idempotency-key': key } : headers, body: JSON.stringify(body) }),
          async api(path, body) {
            const res = await fetch(`${service.url}/v1${path}`, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) });
            const out = await res.json();
            if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}`);
            return out;
          },
        };
        await route.setup(ctx);

        const since = processor.acts.length;
        processor.mode = MODE[fault];
        if (fault.startsWith('kill-')) {
          let acting: Promise<unknown>;
          if (fault === 'kill-after') {
            acting = route.act(ctx).catch(() => null);
            await expect.poll(() => route.recorded(ctx), POLL).toBe(true);
          } else {
            const asked = processor.next(route.path);
            acting = route.act(ctx).catch(() => null);
            await asked;
          }
          service.child.kill('SIGKILL');
          expect(await service.exited).toBe('SIGKILL');
          await acting;
          processor.release();
          processor.mode = 'ok';
          // A keyed request dead before its call: its retry rolls the step forward (jobs off, so the retry does it, not reconciliation).
          const rollForward = fault === 'kill-before' && route.keyed;
          service = await started(rollForward ? { ...env, BACKGROUND_WORK: 'false' } : env);
          processes.push(service);
          if (rollForward) {
            // Past the key's longest 409 (60 s + one PAYMENT_CLAIM_MS).
            clock.set(120_000);
            const rolled = await route.act(ctx);
            expect(rolled.status, await rolled.clone().text()).toBeLessThan(300);
          }
        } else {
          const lookedUp = processor.next('/lookup');
          const asked = processor.next(route.path);
          await route.firstAnswer(await route.act(ctx), fault);
          // A subscription's charge is the scheduler's, after the answer: the fault is the processor's until it is asked.
          await asked;
          // Once the service has given up and asks what happened: the late act, or the notification.
          if (fault === 'late' || fault === 'notify-later') await lookedUp;
          if (fault === 'late') processor.release();
          if (fault === 'notify-later') expect(await processor.notify(service.url)).toEqual([204]);
          processor.mode = 'ok';
        }

        // The processor does nothing more from here (released, notified, or never to act), so
        // the service's clock is moved past the settle window and every claim: reconciliation
        // proves the outcome at its next rounds, not after 12 s of real time. (A keyed
        // kill-before's clock is already further on.)
        if (!(fault === 'kill-before' && route.keyed)) clock.set(SETTLE_WINDOW_MS + 2_000);
        const acted = acts(route, routeName, fault);
        await route.settled(ctx, acted, fault);
        if (route.keyed) {
          // Past the key's longest 409: the same key answers the same object, with no new gateway call.
          clock.set(120_000);
          const before = processor.requests.length;
          await route.retried!(await route.act(ctx), acted);
          // (A request the gateway did not act on answered a 502 that keeps nothing: its retry may ask again, as any 502's may.)
          if (acted) expect(processor.requests.slice(before).filter((r) => r.path === route.path)).toHaveLength(0);
        }
        await checkInvariants({ processor, api: ctx.api, processes, since, path: route.path });
      });
    });
  });
}
