import { once } from 'node:events';
import type { IRouter } from 'express';
import { z } from 'zod';
import { settlementCsv } from '../present/settlement-csv';
import { getMerchantPayout, listMerchantPayouts, payoutSettingsOf, settlementLines } from '../store/merchant-payouts';
import type { Kit } from './kit';
import { payoutPage, payoutsPage } from './payout-pages';

// /dashboard/payouts/: the payouts of the balance to the merchant's bank account, one
// payout, and its settlement report as CSV: the rows of GET /v1/report/settlement/?payout=
// (the same reader and writer), streamed batch by batch with backpressure. Read-only:
// payouts are made by their schedule, through the API or by the Balance page's "Pay out now".

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });

export function payoutRoutes(router: IRouter, kit: Kit): void {
  const { db, page, send, textOf, notFound, audit } = kit;

  router.get('/payouts/', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const q = pageQuery.parse(req.query);
    const [{ count, rows }, settings] = await Promise.all([listMerchantPayouts(db, env, {}, { page: q.page, page_size: PAGE_SIZE }), payoutSettingsOf(db, env)]);
    send(res, 200, payoutsPage({ text: textOf(req), session: s, rows, settings, page: q.page, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) }));
  }));

  router.get('/payouts/:id/', page('viewer', async (req, res, s) => {
    const id = String(req.params.id);
    const row = ID.test(id) ? await getMerchantPayout(db, s.current.environment_id, id) : undefined;
    if (!row) return notFound(req, res);
    send(res, 200, payoutPage({ text: textOf(req), session: s, row }));
  }));

  router.get('/payouts/:id/settlement.csv', page('viewer', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const row = ID.test(id) ? await getMerchantPayout(db, env, id) : undefined;
    if (!row) return notFound(req, res);
    await audit(req, s, 'settlement_downloaded', { payout: id });
    res.status(200).set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="settlement-${id}.csv"` });
    for await (const chunk of settlementCsv(settlementLines(db, { environmentId: env, payoutId: id }))) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await once(res, 'drain');
    }
    res.end();
  }));
}
