import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { inviteUser } from '../../server/dashboard/accounts';
import { newToken, uuidv7 } from '../../server/domain/ids';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { refreshStatistics } from '../../server/store/statistics';
import { payToken } from '../api/pay';
import { countTransactions, createTransaction, type Store } from './data';

// The dashboard section's shop (dashboard.ts): a few payments made as customers and the
// merchant make them (paid, declined, refunded in part and in full, disputed, with their
// events delivered to a webhook endpoint), then copied straight into the tables, every
// row of every payment with fresh ids and spread over the last 90 days, until the shop
// holds the number of payments asked for.

/** The tables a payment's rows are in (once paid, refunded, disputed and notified), parents first. */
const PAYMENT_TABLES = [
  'transactions',
  'transaction_lines',
  'sales',
  'sale_operations',
  'payment_attempts',
  'gateway_calls',
  'ledger_entries',
  'balance_transactions',
  'disputes',
  'events',
  'event_deliveries',
  'delivery_attempts',
  'mails',
] as const;

/**
 * Times a job acts on when due (a dispute's deadline, a retry): kept as they are, so the
 * copies give the service's jobs no work that the measurements would share the CPU with.
 */
const KEPT_TIMES = new Set(['evidence_due_by', 'expired_at', 'next_attempt_at', 'locked_until', 'claimed_until', 'check_at', 'confirm_expires_at', 'processor_claimed_until']);

const DAY_MS = 86_400_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A local webhook endpoint that accepts every delivery. */
export async function startHookReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function api<T>(baseUrl: string, auth: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/v1${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} /v1${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Eight approved payments (three of them refunded: one in full, two in part), one declined, two disputed. */
const TEMPLATE_CARDS = [...Array<string>(8).fill(TEST_CARDS.approved), TEST_CARDS.declined, TEST_CARDS.disputedFraudulent, TEST_CARDS.disputeInquiry];
const REFUNDED = 3;

/** The template payments, through the service at `baseUrl`: every row as the service writes it. */
export async function templatePayments(baseUrl: string, store: Store, hookUrl: string): Promise<void> {
  await api(baseUrl, store.auth, 'POST', '/webhook_endpoint/', { url: hookUrl, enabled_events: ['*'] });
  for (const [i, card] of TEMPLATE_CARDS.entries()) {
    const body = {
      currency: 'EUR',
      order_id: `order-${i + 1}`,
      customer_email: `buyer${i + 1}@shop.example`,
      notify_url: hookUrl,
      products: [
        { amount: 1, product: { name: 'Coffee beans', price: 10 + i * 1.25 } },
        { amount: 2, product: { name: 'Filter papers', price: 3.5 } },
      ],
    };
    const tx = await createTransaction(baseUrl, store.auth, body);
    const status = await payToken(baseUrl, tx.token, card);
    if (status !== 200) throw new Error(`paying template ${i + 1} answered ${status}`);
    if (i < REFUNDED) {
      const sales = await api<{ results: { id: string }[] }>(baseUrl, store.auth, 'GET', `/sale/?transaction_id=${tx.id}`);
      await api(baseUrl, store.auth, 'POST', `/sale/${sales.results[0]!.id}/refund/`, i === 0 ? {} : { amount: 5, reason: 'requested_by_customer' });
    }
  }
  // The sandbox bank opens its disputes a few seconds after the capture; the jobs deliver the
  // events and put the operations in the balance (copies of an operation not dealt with yet
  // would be the balance job's work while the pages are measured).
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const db = store.database.db;
    const [disputes, undelivered, unbalanced] = await Promise.all([
      db.selectFrom('disputes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      db.selectFrom('event_deliveries').where('delivery_status', '!=', 'delivered').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      db.selectFrom('sale_operations').where('balance_checked_at', 'is', null).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    if (Number(disputes.n) === 2 && Number(undelivered.n) === 0 && Number(unbalanced.n) === 0) return;
    await sleep(500);
  }
  throw new Error('the template disputes were not opened, their events not delivered, or their operations not in the balance within 60 s');
}

type Row = Record<string, unknown>;

/** One copy of every template row: ids (and the tokens, emails, order ids that must differ) replaced, times moved `shiftMs` back. */
function copyRows(template: Map<string, Row[]>, ids: Set<string>, copy: number, shiftMs: number): Map<string, Row[]> {
  const fresh = new Map<string, string>();
  const idFor = (old: string) => {
    let id = fresh.get(old);
    // At the old id's moment moved back as the times are: lists in id order keep the copy's order.
    if (!id) fresh.set(old, (id = uuidv7(parseInt(old.slice(0, 8) + old.slice(9, 13), 16) - shiftMs)));
    return id;
  };
  const remap = (value: string) => value.replace(UUID, (m) => (ids.has(m) ? idFor(m) : m));
  const shift = (value: string) => new Date(Date.parse(value) - shiftMs).toISOString();
  const out = new Map<string, Row[]>();
  for (const [table, rows] of template) {
    out.set(
      table,
      rows.map((row) => {
        const next: Row = {};
        for (const [column, value] of Object.entries(row)) {
          let v: unknown = value instanceof Date ? value.toISOString() : value;
          if (typeof v === 'string') {
            if (ISO_TIME.test(v) && !KEPT_TIMES.has(column)) v = shift(v);
            else if (column === 'token') v = newToken();
            else if (column === 'customer_email' || column === 'recipient') v = v.replace('@', `.${copy}@`);
            else if (column === 'order_id') v = `${v}-${copy}`;
            else v = remap(v as string);
          } else if (v !== null && typeof v === 'object') {
            v = JSON.parse(remap(JSON.stringify(v)));
          }
          next[column] = v;
        }
        return next;
      }),
    );
  }
  return out;
}

/** Copies of the template payments until the environment holds `payments` transactions; seconds taken. */
export async function seedPayments(store: Store, payments: number, batchCopies = 50): Promise<number> {
  const started = Date.now();
  const db = store.database.db;
  const template = new Map<string, Row[]>();
  for (const table of PAYMENT_TABLES) {
    // Only settled payments: an open one would expire, and the expiry job run, while measuring.
    let rows = (await db.selectFrom(table).selectAll().execute()) as Row[];
    if (table === 'transactions') rows = rows.filter((r) => r.status !== 'pending');
    template.set(table, rows);
  }
  const kept = new Set((template.get('transactions') ?? []).map((r) => r.id as string));
  template.set('transaction_lines', template.get('transaction_lines')!.filter((r) => kept.has(r.transaction_id as string)));
  const ids = new Set([...template.values()].flat().flatMap((r) => [r.id, r.movement_id].filter((v): v is string => typeof v === 'string')));
  const perCopy = template.get('transactions')!.length;
  const copies = Math.ceil(Math.max(0, payments - (await countTransactions(store))) / perCopy);
  for (let done = 0; done < copies; done += batchCopies) {
    const batch = Array.from({ length: Math.min(batchCopies, copies - done) }, (_, k) => copyRows(template, ids, done + k + 1, ((done + k + 1) / copies) * 90 * DAY_MS));
    await db.transaction().execute(async (trx) => {
      for (const table of PAYMENT_TABLES) {
        const rows = batch.flatMap((b) => b.get(table) ?? []);
        if (!rows.length) continue;
        const per = Math.max(1, Math.floor(30_000 / Object.keys(rows[0]!).length));
        for (let i = 0; i < rows.length; i += per) await trx.insertInto(table).values(rows.slice(i, i + per) as never).execute();
      }
    });
  }
  // The planner's statistics as a shop of this size has them: the service's statistics job
  // ran at its start, before the copies, and runs again within the hour (SQLite); autovacuum
  // would analyse soon (PostgreSQL).
  if (store.database.engine === 'sqlite') {
    await refreshStatistics(store.database);
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  } else await sql`ANALYZE`.execute(db);
  return (Date.now() - started) / 1000;
}

/** An owner of the bench environment, invited as `npm run users -- invite` does, and signed in over HTTP: the session's Cookie header. */
export async function signedInMember(baseUrl: string, store: Store): Promise<string> {
  const { token } = await inviteUser(store.database.db, { email: 'owner@shop.example', environmentId: store.keys.environment_id, role: 'owner', invitedBy: null, now: new Date() });
  const jar = new Map<string, string>();
  const take = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const path = `${baseUrl}/dashboard/invite/${token}/`;
  const form = await fetch(path, { redirect: 'manual' });
  take(form);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf) throw new Error(`the invitation page (${form.status}) has no CSRF field`);
  const body = new URLSearchParams({ csrf, password: 'bench horse battery staple' });
  const headers = { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl, 'sec-fetch-site': 'same-origin' };
  const done = await fetch(path, { method: 'POST', headers, body, redirect: 'manual' });
  take(done);
  await done.arrayBuffer();
  if (done.status !== 303 || done.headers.get('location') !== '/dashboard/') throw new Error(`accepting the invitation answered ${done.status}`);
  return cookie();
}
