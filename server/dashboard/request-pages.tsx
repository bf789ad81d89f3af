import type { ApiRequestRow } from '../store/schema';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { Notice } from './list-parts';
import { METHODS, type RequestField, type RequestFilters, requestsHref } from './request-filters';
import type { Signed } from './sale-pages';

// Developers → Requests: the API's request log, newest first, with its filters (a GET
// form) and links to the newest and to the older rows.

const LABELS = { status: 'req.status', method: 'req.method', path: 'req.path', request_id: 'req.requestId', from: 'tx.from', to: 'tx.to' } as const;

function FilterForm({ text, filters: f }: { text: DashboardText; filters: RequestFilters }) {
  const { t } = text;
  return (
    <form method="get" action="/dashboard/requests/" class="filters" aria-label={t('req.filter')}>
      <div>
        <label for="req-status">{t('req.status')}</label>
        <input id="req-status" name="status" value={f.status ?? ''} maxLength={3} size={5} autocomplete="off" aria-describedby="req-status-hint" />
        <p id="req-status-hint" class="hint">
          {t('req.statusHint')}
        </p>
      </div>
      <div>
        <label for="req-method">{t('req.method')}</label>
        <select id="req-method" name="method">
          <option value="">{t('req.anyMethod')}</option>
          {METHODS.map((m) => (
            <option key={m} value={m} selected={f.method === m}>
              {m}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="req-path">{t('req.pathContains')}</label>
        <input id="req-path" name="path" value={f.path ?? ''} maxLength={200} autocomplete="off" />
      </div>
      <div>
        <label for="req-id">{t('req.requestId')}</label>
        <input id="req-id" name="request_id" value={f.request_id ?? ''} maxLength={100} autocomplete="off" />
      </div>
      <div>
        <label for="req-from">{t('tx.from')}</label>
        <input id="req-from" name="from" type="date" value={f.from ?? ''} />
      </div>
      <div>
        <label for="req-to">{t('tx.to')}</label>
        <input id="req-to" name="to" type="date" value={f.to ?? ''} />
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}

const CLASSES = { 1: 'req.class.1', 2: 'req.class.2', 3: 'req.class.3', 4: 'req.class.4', 5: 'req.class.5' } as const;

/** The code, coloured by its class, and the class in words for those who do not see the colour. */
function Status({ text, status }: { text: DashboardText; status: number }) {
  const cls = Math.floor(status / 100) as keyof typeof CLASSES;
  return (
    <span class="http" data-class={cls}>
      {status}
      <span class="visually-hidden"> {text.t(CLASSES[cls])}</span>
    </span>
  );
}

function Rows({ text, rows }: { text: DashboardText; rows: ApiRequestRow[] }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('req.title')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('req.method')}</th>
            <th scope="col">{t('req.path')}</th>
            <th scope="col">{t('req.status')}</th>
            <th scope="col">{t('req.key')}</th>
            <th scope="col">{t('req.requestId')}</th>
            <th scope="col">{t('req.time')}</th>
            <th scope="col">{t('req.duration')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-request={r.request_id}>
              <td>{r.method}</td>
              <td class="url">{r.path}</td>
              <td>
                <Status text={text} status={r.status} />
              </td>
              <td class="url">{r.public_key}</td>
              <td class="url">{r.request_id}</td>
              <td>
                <time datetime={r.created_at}>{text.dateTime(r.created_at)}</time>
              </td>
              <td>{t('req.ms', { ms: r.duration_ms })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export interface RequestsInput extends Signed {
  rows: ApiRequestRow[];
  filters: RequestFilters;
  ignored: RequestField[];
  /** A later page: link back to the newest. */
  later: boolean;
  more: boolean;
  retentionDays: number;
}

export function requestsPage(p: RequestsInput): string {
  const { text, filters, rows } = p;
  const { t } = text;
  const filtered = Object.keys(filters).length > 0;
  const ignored = p.ignored.map((f) => t(LABELS[f])).join(', ');
  return renderPage(
    { text, session: p.session, title: t('req.title'), active: 'requests' },
    <>
      <p class="hint">{t('req.intro', { days: p.retentionDays })}</p>
      <FilterForm text={text} filters={filters} />
      <Notice notice={ignored ? { text: t('req.notApplied', { fields: ignored }), error: false } : undefined} />
      {rows.length === 0 ? <p class="empty">{filtered || p.later ? t('req.noMatch') : t('req.none')}</p> : <Rows text={text} rows={rows} />}
      {(p.later || p.more) && (
        <nav class="pager" aria-label={t('req.pages')}>
          {p.later && <a href={requestsHref(filters)}>{t('req.newest')}</a>}
          {p.more && <a href={requestsHref(filters, rows.at(-1)!.id)}>{t('req.older')}</a>}
        </nav>
      )}
    </>,
  );
}
