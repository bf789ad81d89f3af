import { NOTE_MAX } from '../store/payment-notes';
import { Csrf } from './layout';
import type { Signed } from './sale-pages';

// "Add a note" under a payment's timeline (note-routes.ts): a plain form, for members who may
// act on the payment; a refused note comes back in it with the reason.

/** A note the server refused, shown again with why. */
export interface NoteDraft {
  value: string;
  error: string;
}

export function NoteForm({ text, session, transactionId, draft }: Signed & { transactionId: string; draft?: NoteDraft }) {
  const { t } = text;
  return (
    <form method="post" action={`/dashboard/transactions/${transactionId}/notes/`} class="card">
      <Csrf token={session.csrf} />
      <label for="note">{t('note.label')}</label>
      <textarea id="note" name="note" rows={3} maxLength={NOTE_MAX} required aria-invalid={draft ? 'true' : undefined} aria-describedby={draft ? 'note-hint note-error' : 'note-hint'}>
        {draft?.value ?? ''}
      </textarea>
      <p class="hint" id="note-hint">
        {t('note.hint', { max: NOTE_MAX.toLocaleString(text.lang) })}
      </p>
      {draft && (
        <p class="field-error" id="note-error" data-testid="note-error">
          {draft.error}
        </p>
      )}
      <button type="submit">{t('note.submit')}</button>
    </form>
  );
}
