import type { IRouter, Request, Response } from 'express';
import { apiObjectsOf } from './api-object';
import { z } from 'zod';
import { baseUrlOf } from '../http/route';
import { listApiKeys } from '../store/api-keys';
import { paymentFactsOf } from '../store/payment-list';
import { listSavedViews } from '../store/saved-views';
import { listSales } from '../store/sales';
import { transactionSurroundings } from '../store/transaction-detail';
import { getTransaction, listTransactions } from '../store/transactions';
import type { ActiveSession } from './accounts';
import type { Kit } from './kit';
import type { NoteDraft } from './note-form';
import { transactionPage } from './transaction-page';
import { payingSale } from './payment-summary';
import { paymentSummaryFacts } from '../store/payment-summary';
import { paymentTimelineFacts } from '../store/payment-timeline';
import { transactionsPage } from './transactions-page';
import { parseTxFilters, storeFilters } from './transaction-filters';

// Transactions: the list with its filters and search, and one transaction with its sales
// (whose capture, refund and void are sale-routes.ts).

const PAGE_SIZE = 20;
export const ID = /^[0-9a-f-]{36}$/;

const doneQuery = z.union([
  z.object({ done: z.enum(['capture', 'refund', 'void']), amount: z.coerce.number().int().min(0) }),
  // The receipt sent again (receipt-routes.ts), a note added (note-routes.ts).
  z.object({ done: z.enum(['receipt', 'note']) }),
]);

export const txUrl = (transactionId: string | null) => (transactionId ? `/dashboard/transactions/${transactionId}/` : '/dashboard/transactions/');

/** One transaction's page, with `notice` on top (what an action on one of its sales came to) and a refused note in its form. */
export async function showTransaction(kit: Kit, req: Request, res: Response, s: ActiveSession, id: string, status = 200, notice?: string, note?: NoteDraft) {
  const { db, deps, send, textOf, notFound } = kit;
  const env = s.current.environment_id;
  const found = ID.test(id) ? await getTransaction(db, env, id) : undefined;
  if (!found) return notFound(req, res);
  const { rows: sales } = await listSales(db, env, { transaction_id: id }, { page: 1, page_size: 100 });
  const around = await transactionSurroundings(db, env, found.row);
  const summary = await paymentSummaryFacts(db, env, id, payingSale(sales)?.row.id ?? null);
  const timeline = await paymentTimelineFacts(db, env, id, sales.map((sale) => sale.row.id));
  const now = deps.now();
  const api = apiObjectsOf(found, sales, { now, baseUrl: baseUrlOf(req, deps), live: s.current.environment_mode === 'live' });
  send(res, status, transactionPage({ text: textOf(req), session: s, tx: found.row, lines: found.lines, sales, around, summary, timeline, now, notice, note, api }));
}

export function moneyRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf } = kit;

  router.get('/transactions/', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const parsed = parseTxFilters(req.query);
    const { count, rows: items } = await listTransactions(db, env, storeFilters(parsed.filters, deps.now().toISOString(), textOf(req).timeZone), { page: parsed.filters.page, page_size: PAGE_SIZE });
    const publicKey = (await listApiKeys(db, env)).find((k) => !k.revoked_at)?.public_key ?? null;
    const facts = await paymentFactsOf(db, env, items.map((i) => i.row.id));
    const views = await listSavedViews(db, { environmentId: env, userId: s.userId });
    const view = { parsed, items, facts, views, now: deps.now(), count, pageSize: PAGE_SIZE, publicKey, baseUrl: baseUrlOf(req, deps) };
    send(res, 200, transactionsPage({ text: textOf(req), session: s, ...view }));
  }));

  router.get('/transactions/:id/', page('viewer', async (req, res, s) => {
    const done = doneQuery.safeParse(req.query);
    const text = textOf(req);
    let notice: string | undefined;
    if (done.success) {
      const tx = ID.test(String(req.params.id)) ? await getTransaction(db, s.current.environment_id, String(req.params.id)) : undefined;
      const d = done.data;
      if (tx && d.done === 'receipt') notice = text.t('receipt.resent', { to: tx.row.customer_email ?? '' });
      else if (tx && d.done === 'note') notice = text.t('note.added');
      else if (tx && 'amount' in d) notice = text.t('sale.done', { action: text.t(`sale.action.${d.done}`), amount: text.money(d.amount, tx.row.currency) });
    }
    await showTransaction(kit, req, res, s, String(req.params.id), 200, notice);
  }));
}
