import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { EXPORT_KINDS, type ExportKind } from './export-csv';

// The export form: what to export and which days. A plain GET form: the answer is the CSV
// file itself, which the browser saves.

export interface ExportForm {
  kind: ExportKind;
  from: string;
  to: string;
}

export function exportPage(p: { text: DashboardText; session: ActiveSession; form: ExportForm; error?: string }): string {
  const { t } = p.text;
  return renderPage(
    { text: p.text, session: p.session, title: t('export.title'), active: 'export' },
    <>
      <p>{t('export.intro', { zone: p.text.timeZone })}</p>
      {p.error && (
        <p role="alert" class="notice error">
          {p.error}
        </p>
      )}
      <form method="get" action="/dashboard/export/csv" class="card">
        <label for="x-kind">{t('export.kind')}</label>
        <select id="x-kind" name="kind">
          {EXPORT_KINDS.map((kind) => (
            <option key={kind} value={kind} selected={kind === p.form.kind}>
              {t(`export.kind.${kind}`)}
            </option>
          ))}
        </select>
        <label for="x-from">{t('export.from')}</label>
        <input id="x-from" name="from" type="date" value={p.form.from} required />
        <label for="x-to">{t('export.to')}</label>
        <input id="x-to" name="to" type="date" value={p.form.to} required />
        <button type="submit" class="primary">
          {t('export.submit')}
        </button>
      </form>
    </>,
  );
}
