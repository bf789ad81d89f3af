import type { IRouter } from 'express';
import { z } from 'zod';
import { freeText } from '../schemas/fields';
import { addPaymentNote, NOTE_MAX } from '../store/payment-notes';
import type { DashboardKey } from './i18n';
import type { Kit } from './kit';
import { ID, showTransaction, txUrl } from './money-routes';

// POST /dashboard/transactions/{id}/notes/: a note for the team on a payment's timeline
// (admins and owners, who act on payments), audited. Only the dashboard shows notes: no
// webhook or API answer carries them. A refused note comes back in its form, saying why.

/**
 * The API's free-text rule (tab and line breaks, no other control character or half a
 * surrogate pair, which PostgreSQL refuses), its line breaks counted as a textarea's
 * maxlength counts them: one each, as LF.
 */
const noteBody = z
  .string()
  .transform((s) => s.replace(/\r\n?/g, '\n'))
  .pipe(freeText(NOTE_MAX).min(1));

const REFUSALS: Partial<Record<z.core.$ZodIssue['code'], DashboardKey>> = { too_big: 'note.tooLong', invalid_format: 'note.badCharacter' };

export function noteRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, action, textOf, audit, notFound } = kit;
  router.post('/transactions/:id/notes/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    if (!ID.test(id)) return notFound(req, res);
    const typed = (req.body as Record<string, unknown>).note;
    const parsed = noteBody.safeParse(typed);
    if (!parsed.success) {
      const error = textOf(req).t(REFUSALS[parsed.error.issues[0]!.code] ?? 'note.empty', { max: NOTE_MAX.toLocaleString(textOf(req).lang) });
      return showTransaction(kit, req, res, s, id, 400, undefined, { value: typeof typed === 'string' ? typed : '', error });
    }
    const note = await addPaymentNote(db, { environmentId: s.current.environment_id, transactionId: id, authorUserId: s.userId, body: parsed.data }, deps.now());
    if (!note) return notFound(req, res);
    await audit(req, s, 'note_added', { transaction: id, note });
    res.redirect(303, `${txUrl(id)}?done=note`);
  }));
}
