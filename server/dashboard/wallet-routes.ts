import type { IRouter } from 'express';
import { z } from 'zod';
import { getWallet, listEntries, listWallets } from '../store/ledger';
import { listTransfers } from '../store/transfers';
import type { Kit } from './kit';
import { walletPage, walletsPage } from './wallet-pages';

// /dashboard/wallets/: the environment's wallets with their balances, and one wallet with
// its entries (the ledger as GET /v1/wallet/{id}/entry/ shows it) and the transfers and
// payouts it sent. Read-only: money moves through the API, whose rules guard it.

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });
const pages = (count: number) => Math.max(1, Math.ceil(count / PAGE_SIZE));

export function walletRoutes(router: IRouter, kit: Kit): void {
  const { db, page, send, textOf, notFound } = kit;

  router.get('/wallets/', page('viewer', async (req, res, s) => {
    const q = pageQuery.parse(req.query);
    const { count, rows } = await listWallets(db, s.current.environment_id, {}, { page: q.page, page_size: PAGE_SIZE });
    send(res, 200, walletsPage({ text: textOf(req), session: s, rows, page: q.page, pages: pages(count) }));
  }));

  router.get('/wallets/:id/', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const wallet = ID.test(id) ? await getWallet(db, env, id) : undefined;
    if (!wallet) return notFound(req, res);
    const q = pageQuery.parse(req.query);
    const entries = await listEntries(db, env, id, {}, { page: q.page, page_size: PAGE_SIZE });
    // What the wallet sent (to another wallet or to an IBAN): the newest, one page.
    const transfers = await listTransfers(db, env, { source_wallet: id }, { page: 1, page_size: PAGE_SIZE });
    send(res, 200, walletPage({ text: textOf(req), session: s, wallet, entries: entries.rows, transfers: transfers.rows, page: q.page, pages: pages(entries.count) }));
  }));
}
