import { once } from 'node:events';
import type { IRouter } from 'express';
import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import { csvLine, text } from '../domain/csv';
import type { PaymentStatus } from '../domain/payment-status';
import { EXPORT_KINDS, EXPORTS } from './export-csv';
import { exportPage, type ExportForm } from './export-page';
import type { Kit } from './kit';

// CSV exports for a range of days, streamed: each batch of rows is written as it is read,
// and the next read waits while the client is slow (backpressure), so a month of a busy
// shop never sits in memory. Viewers may export: they may see every row already.

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const day = z
  .string()
  .regex(DATE)
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d));
// `type` and `currency` narrow the balance transactions (the Balance page's filters).
const exportQuery = z
  .object({ kind: z.enum(EXPORT_KINDS), from: day, to: day, type: z.enum(BALANCE_TRANSACTION_TYPES).optional(), currency: z.string().regex(/^[A-Z]{3}$/).optional() })
  .refine((q) => q.from <= q.to);

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function exportRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf, audit } = kit;

  /** The last 30 days, today included. */
  const defaults = (): ExportForm => {
    const today = deps.now().getTime();
    return { kind: 'transactions', from: isoDay(today - 29 * DAY_MS), to: isoDay(today) };
  };

  router.get('/export/', page('viewer', async (req, res, s) => {
    send(res, 200, exportPage({ text: textOf(req), session: s, form: defaults() }));
  }));

  router.get('/export/csv', page('viewer', async (req, res, s) => {
    const query = exportQuery.safeParse(req.query);
    if (!query.success) {
      const text = textOf(req);
      return send(res, 400, exportPage({ text, session: s, form: defaults(), error: text.t('export.badRange') }));
    }
    const { kind, from, to, type, currency } = query.data;
    const definition = EXPORTS[kind];
    const range = {
      environmentId: s.current.environment_id,
      from: `${from}T00:00:00.000Z`,
      to: new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS).toISOString(),
      only: { type, currency },
    };
    await audit(req, s, 'exported', { kind, from, to, ...(type && { type }), ...(currency && { currency }) });
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${kind}-${from}-${to}.csv"`,
      'Cache-Control': 'no-store',
    });
    // A byte order mark, so spreadsheets read the file as UTF-8.
    res.write(`\uFEFF${csvLine(definition.columns.map(text))}`);
    const words = textOf(req);
    const reader = { status: (status: PaymentStatus) => words.t(`pay.status.${status}`), now: deps.now() };
    for await (const rows of definition.rows(db, range)) {
      if (res.destroyed) return;
      if (!res.write(rows.map((row) => csvLine(definition.cells(row, reader))).join(''))) await once(res, 'drain');
    }
    res.end();
  }));
}
