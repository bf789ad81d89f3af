import type { IRouter } from 'express';
import { z } from 'zod';
import { MAX_SEARCH_LENGTH } from '../domain/transaction-search';
import type { Kit } from './kit';
import { findObjects, objectLink, searchEverything } from './search-results';
import { searchPage } from './search-page';

// /dashboard/search/?q=…: the header's search box. An exact id or token of one object with a
// page of its own goes straight to that page (303); anything else lists what each kind
// holds that matches, a few rows per kind. Every query is the session's environment's.

type Problem = 'tooLong' | 'control' | 'invalid';

/** The text typed: one line (PostgreSQL refuses NUL in a text; no other control character belongs in one line either). */
const searchText = z
  .string()
  .trim()
  .max(MAX_SEARCH_LENGTH)
  .regex(/^[^\p{Cc}]*$/u);

/** The text, or why it cannot be searched; neither for a blank box. A repeated `q` is read by its first. */
function readQuery(raw: unknown): { text?: string; problem?: Problem } {
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return {};
  const parsed = searchText.safeParse(value);
  if (parsed.success) return parsed.data ? { text: parsed.data } : {};
  const code = parsed.error.issues[0]?.code;
  return { problem: code === 'too_big' ? 'tooLong' : code === 'invalid_format' ? 'control' : 'invalid' };
}

export function searchRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf } = kit;
  router.get('/search/', page('viewer', async (req, res, s) => {
    const text = textOf(req);
    const { text: q, problem } = readQuery(req.query.q);
    if (problem) {
      const message = text.t(`search.${problem}`, { max: MAX_SEARCH_LENGTH });
      return send(res, 400, searchPage({ text, session: s, q: '', problem: message, now: deps.now() }));
    }
    if (!q) return send(res, 200, searchPage({ text, session: s, q: '', now: deps.now() }));
    const env = s.current.environment_id;
    const byId = await findObjects(db, env, q);
    const only = byId.length === 1 ? objectLink(byId[0]!) : undefined;
    if (only?.own) return res.redirect(303, only.href);
    send(res, 200, searchPage({ text, session: s, q, results: await searchEverything(db, env, q, text.timeZone, byId), now: deps.now() }));
  }));
}
