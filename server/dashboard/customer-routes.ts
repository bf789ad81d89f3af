import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { customerKey } from '../domain/customers';
import { getClient } from '../store/clients';
import { clientOfKey, customerCards, customerPayments, customerSubscriptions, listCustomers, payerKey, valuesOf } from '../store/customers';
import { listWallets } from '../store/ledger';
import { paymentFactsOf } from '../store/payment-list';
import { SINGLE_LINE } from '../../widget/fields/text';
import type { ActiveSession } from './accounts';
import { customerPage, customersPage, customerUrl, MAX_CUSTOMER_SEARCH } from './customer-pages';
import type { Kit } from './kit';

// /dashboard/customers/: the list of clients and payers, and one customer's page. A payer's
// page is named by one of their payments' ids; one whose email is a client's is that
// client's page. Another environment's client or payment is a 404 like an unknown one.

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const pageNo = z.coerce.number().int().min(1).max(100_000).default(1).catch(1);
const listQuery = z.object({
  q: z.string().trim().max(MAX_CUSTOMER_SEARCH).regex(SINGLE_LINE).optional().catch(undefined),
  all: z.literal('1').optional().catch(undefined),
  page: pageNo,
});
const detailQuery = z.object({ page: pageNo });
const pagesOf = (count: number) => Math.max(1, Math.ceil(count / PAGE_SIZE));

export function customerRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf, notFound } = kit;

  async function show(req: Request, res: Response, s: ActiveSession, who: { clientId: string | null; key: string | null; email: string | null; href: string }) {
    const env = s.current.environment_id;
    const client = who.clientId ? ((await getClient(db, env, who.clientId)) ?? null) : null;
    const { page: pageNo } = detailQuery.parse(req.query);
    const [{ count, rows: payments }, values, subscriptions, wallets] = await Promise.all([
      customerPayments(db, env, who.key, { page: pageNo, page_size: PAGE_SIZE }),
      valuesOf(db, env, who.key ? [who.key] : []),
      customerSubscriptions(db, env, who),
      client ? listWallets(db, env, { client_id: client.id }, { page: 1, page_size: 100 }) : undefined,
    ]);
    const [facts, cards] = await Promise.all([paymentFactsOf(db, env, payments.map((p) => p.row.id)), customerCards(db, env, who, subscriptions)]);
    const value = (who.key && values.get(who.key)) || [];
    const view = { client, email: who.email, value, payments, facts, page: pageNo, pages: pagesOf(count), cards, subscriptions, wallets: wallets?.rows ?? [], now: deps.now(), href: who.href };
    send(res, 200, customerPage({ text: textOf(req), session: s, ...view }));
  }

  router.get('/customers/', page('viewer', async (req, res, s) => {
    const { q, all, page: pageNo } = listQuery.parse(req.query);
    const { count, rows } = await listCustomers(db, s.current.environment_id, { q, hide_tools: all === undefined }, { page: pageNo, page_size: PAGE_SIZE });
    const query = { q: q ?? '', all: all !== undefined, page: pageNo };
    send(res, 200, customersPage({ text: textOf(req), session: s, query, rows, pages: pagesOf(count) }));
  }));

  router.get('/customers/clients/:id/', page('viewer', async (req, res, s) => {
    const id = String(req.params.id);
    const client = ID.test(id) ? await getClient(db, s.current.environment_id, id) : undefined;
    if (!client) return notFound(req, res);
    const key = client.email?.trim() ? customerKey(client.email) : null;
    await show(req, res, s, { clientId: client.id, key, email: client.email, href: customerUrl({ kind: 'client', id }) });
  }));

  router.get('/customers/payers/:id/', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const key = ID.test(id) ? await payerKey(db, env, id) : undefined;
    if (!key) return notFound(req, res);
    const clientId = await clientOfKey(db, env, key);
    if (clientId) return res.redirect(303, customerUrl({ kind: 'client', id: clientId }));
    await show(req, res, s, { clientId: null, key, email: key, href: customerUrl({ kind: 'payer', id }) });
  }));
}
