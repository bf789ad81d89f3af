import { z } from 'zod';
import { addDays, dayStart } from '../domain/time-zone';
import type { AuditFilters as StoreAuditFilters } from '../store/audit';
import type { DashboardText } from './i18n';
import { day } from './transaction-filters';

// The audit log's filters as the query string carries them: by action, by the member's
// email, and a range of days of the shop's time zone. Each is parsed on its own; a
// nonsense value is dropped.

const fields = {
  action: z.string().regex(/^[a-z_]{1,40}$/),
  email: z.string().trim().min(1).max(320).regex(/^[^\p{Cc}]*$/u),
  from: day,
  to: day,
};
type Field = keyof typeof fields;
const FIELDS = Object.keys(fields) as Field[];

/** The filters as the page's form has them: days `YYYY-MM-DD`, both included. */
export type AuditFilters = Partial<Record<Field, string>>;

/** The store's filters: the days as moments of the shop's time zone (the day after `to` excluded). */
export const storeAuditFilters = (f: AuditFilters, timeZone: string): StoreAuditFilters => ({
  action: f.action,
  email: f.email,
  since: f.from && dayStart(f.from, timeZone).toISOString(),
  until: f.to && dayStart(addDays(f.to, 1), timeZone).toISOString(),
});

export function parseAuditFilters(query: Record<string, unknown>): AuditFilters {
  const out: AuditFilters = {};
  for (const f of FIELDS) {
    const raw = query[f];
    if (raw === undefined || raw === '') continue;
    const parsed = fields[f].safeParse(raw);
    if (parsed.success) out[f] = parsed.data;
  }
  return out;
}

/** The query string of these filters and a page number, for the pager's links. */
export function auditQueryString(f: AuditFilters, page: number): string {
  const params = new URLSearchParams();
  for (const key of FIELDS) if (f[key]) params.set(key, f[key]);
  if (page > 1) params.set('page', String(page));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export function AuditFilterForm({ text, filters: f, actions, emails }: { text: DashboardText; filters: AuditFilters; actions: string[]; emails: string[] }) {
  const { t } = text;
  return (
    <form method="get" action="/dashboard/audit/" class="filters" aria-label={t('audit.filter')}>
      <div>
        <label for="a-action">{t('audit.filterAction')}</label>
        <select id="a-action" name="action">
          <option value="">{t('audit.allActions')}</option>
          {actions.map((a) => (
            <option key={a} value={a} selected={f.action === a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="a-email">{t('audit.user')}</label>
        <select id="a-email" name="email">
          <option value="">{t('audit.allUsers')}</option>
          {emails.map((e) => (
            <option key={e} value={e} selected={f.email === e}>
              {e}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="a-from">{t('tx.from')}</label>
        <input id="a-from" name="from" type="date" value={f.from ?? ''} />
      </div>
      <div>
        <label for="a-to">{t('tx.to')}</label>
        <input id="a-to" name="to" type="date" value={f.to ?? ''} />
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}
