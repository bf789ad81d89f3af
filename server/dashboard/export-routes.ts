import { once } from 'node:events';
import type { IRouter } from 'express';
import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import { csvLine, text } from '../domain/csv';
import { addDays, dayStart, isCalendarDay, zonedDay } from '../domain/time-zone';
import { EXPORT_KINDS, EXPORTS } from './export-csv';
import { exportPage, type ExportForm } from './export-page';
import type { Kit } from './kit';

// CSV exports for a range of days of the shop's time zone (its times in it too), streamed: each batch of rows is written as it is read,
// and the next read waits while the client is slow (backpressure), so a month of a busy
// shop never sits in memory. Viewers may export: they may see every row already.

const day = z.string().refine(isCalendarDay);
// `type` and `currency` narrow the balance transactions (the Balance page's filters).
const exportQuery = z
  .object({ kind: z.enum(EXPORT_KINDS), from: day, to: day, type: z.enum(BALANCE_TRANSACTION_TYPES).optional(), currency: z.string().regex(/^[A-Z]{3}$/).optional() })
  .refine((q) => q.from <= q.to);

export function exportRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf, audit } = kit;

  /** The last 30 days of the shop's time zone, today included. */
  const defaults = (timeZone: string): ExportForm => {
    const today = zonedDay(deps.now(), timeZone);
    return { kind: 'transactions', from: addDays(today, -29), to: today };
  };

  router.get('/export/', page('viewer', async (req, res, s) => {
    const text = textOf(req);
    send(res, 200, exportPage({ text, session: s, form: defaults(text.timeZone) }));
  }));

  router.get('/export/csv', page('viewer', async (req, res, s) => {
    const words = textOf(req);
    const { timeZone } = words;
    const query = exportQuery.safeParse(req.query);
    if (!query.success) return send(res, 400, exportPage({ text: words, session: s, form: defaults(timeZone), error: words.t('export.badRange') }));
    const { kind, from, to, type, currency } = query.data;
    const definition = EXPORTS[kind];
    // Whole days of the shop's time zone: from the first's start to the start of the day after the last.
    const range = {
      environmentId: s.current.environment_id,
      from: dayStart(from, timeZone).toISOString(),
      to: dayStart(addDays(to, 1), timeZone).toISOString(),
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
    const reader = { t: words.t, now: deps.now(), timeZone };
    for await (const rows of definition.rows(db, range)) {
      if (res.destroyed) return;
      if (!res.write(rows.map((row) => csvLine(definition.cells(row, reader))).join(''))) await once(res, 'drain');
    }
    res.end();
  }));
}
