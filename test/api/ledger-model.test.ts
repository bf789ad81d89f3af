import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Client } from './harness';
import { ENGINES } from './harness';
import { checkLedger, compliantClient, createWallet, entriesOf, useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';

// Model-based property test: random sequences of transfers, payouts (some refused by the
// bank), paid transactions with destinations, refunds and disabled wallets, run against
// the real API and against a plain in-memory model of the balances and receivables (a
// refund a wallet cannot give its part of is covered by the platform; credits pay that
// back first). After every step the wallets' balances and receivables must equal the model's, each wallet's entries must add up to its
// balance as a running sum, and the whole ledger must balance (checkLedger).

/** The sandbox payout gateway refuses IBANs ending 0000. */
const REFUSED_IBAN = 'DE94370400440532010000';
const WALLETS = 3;

interface Sale {
  id: string;
  total: number;
  shares: number[];
  refunded: number;
}

interface Model {
  balance: number[];
  /** What the platform covered for each wallet and is owed back. */
  receivable: number[];
  enabled: boolean[];
  sales: Sale[];
  /** Payouts sent and not yet settled: wallet, amount, whether the bank refuses them. */
  pending: { wallet: number; amount: number; refused: boolean }[];
}

interface Real {
  api: Client;
  wallets: string[];
  ibans: { good: string; refused: string };
  runPayouts(): Promise<unknown>;
  check(): Promise<void>;
}

type Cmd = fc.AsyncCommand<Model, Real>;

const cents = fc.integer({ min: 1, max: 3000 });

/** Money coming into wallet `w` of the model: it pays the wallet's receivable back first. */
function credit(m: Model, w: number, amount: number) {
  const repay = Math.min(amount, m.receivable[w]!);
  m.receivable[w]! -= repay;
  m.balance[w]! += amount - repay;
}
const wallet = fc.integer({ min: 0, max: WALLETS - 1 });

class Pay implements Cmd {
  constructor(
    readonly total: number,
    readonly to: [number, number][],
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    // Shares that fit in the total; the rest stays with the merchant.
    let left = this.total;
    const shares = new Array<number>(WALLETS).fill(0);
    for (const [w, c] of this.to) {
      const share = Math.min(c, left);
      shares[w]! += share;
      left -= share;
    }
    const destination = shares.flatMap((c, w) => (c > 0 ? [{ wallet_id: r.wallets[w], amount: c / 100 }] : []));
    const body = priced('EUR', this.total / 100, { destination });
    if (destination.some((d) => !m.enabled[r.wallets.indexOf(d.wallet_id!)])) {
      expect((await r.api.post('/transaction/', body)).status).toBe(409);
    } else {
      const { sale } = await paidTransaction(r.api, body);
      shares.forEach((c, w) => credit(m, w, c));
      m.sales.push({ id: sale.id, total: this.total, shares, refunded: 0 });
    }
    await r.check();
  }
  toString = () => `pay ${this.total} → ${JSON.stringify(this.to)}`;
}

class Transfer implements Cmd {
  constructor(
    readonly from: number,
    readonly to: number,
    readonly amount: number,
  ) {}
  check = () => this.from !== this.to;
  async run(m: Model, r: Real) {
    const res = await r.api.post('/transfer/', { source_wallet: r.wallets[this.from], destination_wallet: r.wallets[this.to], amount: this.amount / 100 });
    const ok = m.enabled[this.from] && m.enabled[this.to] && m.balance[this.from]! >= this.amount;
    expect(res.status, res.text).toBe(ok ? 201 : 409);
    if (ok) {
      m.balance[this.from]! -= this.amount;
      credit(m, this.to, this.amount);
    }
    await r.check();
  }
  toString = () => `transfer ${this.from}→${this.to} ${this.amount}`;
}

class Payout implements Cmd {
  constructor(
    readonly from: number,
    readonly amount: number,
    readonly refused: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const iban = this.refused ? r.ibans.refused : r.ibans.good;
    const res = await r.api.post('/transfer/', { source_wallet: r.wallets[this.from], destination_iban: iban, amount: this.amount / 100 });
    const ok = m.enabled[this.from] && m.balance[this.from]! >= this.amount;
    expect(res.status, res.text).toBe(ok ? 201 : 409);
    if (ok) {
      m.balance[this.from]! -= this.amount;
      m.pending.push({ wallet: this.from, amount: this.amount, refused: this.refused });
    }
    await r.check();
  }
  toString = () => `payout ${this.from} ${this.amount}${this.refused ? ' (refused)' : ''}`;
}

class RunPayouts implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.runPayouts();
    for (const p of m.pending) if (p.refused) m.balance[p.wallet]! += p.amount;
    m.pending = [];
    await r.check();
  }
  toString = () => 'run payouts';
}

class Refund implements Cmd {
  constructor(
    readonly pick: number,
    readonly cut: number,
  ) {}
  check = (m: Readonly<Model>) => m.sales.some((s) => s.refunded < s.total);
  async run(m: Model, r: Real) {
    const open = m.sales.filter((s) => s.refunded < s.total);
    const sale = open[this.pick % open.length]!;
    const amount = (this.cut % (sale.total - sale.refunded)) + 1;
    // The rule: after refunds totalling R, a destination has given back floor(share × R / total);
    // what a wallet no longer holds of its part, the platform covers, as its receivable.
    const back = sale.shares.map(
      (c) => Math.floor((c * (sale.refunded + amount)) / sale.total) - Math.floor((c * sale.refunded) / sale.total),
    );
    const res = await r.api.post(`/sale/${sale.id}/refund/`, { amount: amount / 100 });
    expect(res.status, res.text).toBe(200);
    back.forEach((b, w) => {
      const given = Math.min(b, m.balance[w]!);
      m.balance[w]! -= given;
      m.receivable[w]! += b - given;
    });
    sale.refunded += amount;
    await r.check();
  }
  toString = () => `refund #${this.pick} cut ${this.cut}`;
}

class Toggle implements Cmd {
  constructor(readonly w: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.enabled[this.w] = !m.enabled[this.w];
    expect((await r.api.patch(`/wallet/${r.wallets[this.w]}/`, { enabled: m.enabled[this.w] })).status).toBe(200);
    await r.check();
  }
  toString = () => `toggle ${this.w}`;
}

const commands = [
  fc.tuple(cents, fc.array(fc.tuple(wallet, cents), { minLength: 1, maxLength: 3 })).map(([t, to]) => new Pay(t, to)),
  fc.tuple(wallet, wallet, cents).map(([a, b, c]) => new Transfer(a, b, c)),
  fc.tuple(wallet, cents, fc.boolean()).map(([a, c, refused]) => new Payout(a, c, refused)),
  fc.constant(new RunPayouts()),
  // Twice: refunds are where the proportional rule lives.
  fc.tuple(fc.nat(), fc.nat()).map(([p, c]) => new Refund(p, c)),
  fc.tuple(fc.nat(), fc.nat()).map(([p, c]) => new Refund(p, c)),
  fc.integer({ min: 0, max: WALLETS - 1 }).map((w) => new Toggle(w)),
];

describe.each(ENGINES)('the ledger against a model on %s', (engine) => {
  const svc = useOwnService(engine);

  // Real HTTP and real payments at every step, on a shared machine: minutes, not seconds.
  it('keeps every balance equal to the model and every invariant, after every step', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 12 }), async (cmds) => {
        const { t } = svc;
        const api = await t.newEnvironment('Model');
        const client = await compliantClient(t, api);
        const refused = (await api.post(`/client/${client.id}/iban/`, { iban: REFUSED_IBAN })).body.id as string;
        const wallets: string[] = [];
        for (let i = 0; i < WALLETS; i++) wallets.push((await createWallet(api, { client_id: client.id })).id);
        const model: Model = { balance: [0, 0, 0], receivable: [0, 0, 0], enabled: [true, true, true], sales: [], pending: [] };
        // Every run starts from one sale split over all the wallets, shares that do not divide evenly.
        const first = await paidTransaction(
          api,
          priced('EUR', 100.01, { destination: wallets.map((id, i) => ({ wallet_id: id, amount: [33.33, 33.34, 20.07][i] })) }),
        );
        model.balance = [3333, 3334, 2007];
        model.sales.push({ id: first.sale.id, total: 10001, shares: [...model.balance], refunded: 0 });
        const real: Real = {
          api,
          wallets,
          ibans: { good: client.iban, refused },
          runPayouts: () => t.service.jobs.runOnce('payouts'),
          async check() {
            for (const [i, id] of wallets.entries()) {
              const shown = (await api.get(`/wallet/${id}/`)).body;
              expect(Math.round(shown.balance * 100), `wallet ${i}`).toBe(model.balance[i]);
              expect(Math.round(shown.receivable * 100), `wallet ${i} receivable`).toBe(model.receivable[i]);
              const entries = await entriesOf(api, id);
              let running = 0;
              for (const e of entries) {
                running += Math.round(e.amount * 100);
                expect(Math.round(e.balance * 100)).toBe(running);
              }
              expect(running).toBe(model.balance[i]);
            }
            await checkLedger(t.service.deps.database.db, api.keys.environment_id);
          },
        };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      }),
      // The machine is shared: few runs, each a real sequence of HTTP calls and payments.
      { numRuns: 8 },
    );
  });
});
