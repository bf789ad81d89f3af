import type { CatalogueItem, CatalogueTable } from '../store/catalogue';
import { roleAtLeast } from '../store/users';
import type { FieldName, FormField, GroupName } from './catalogue-form';
import { GROUPS } from './catalogue-form';
import { type DashboardText, type Interval, pricePerPeriod } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';
import { Pager } from './list-parts';

// The catalogue: a tab per group (products, plans, taxes, shipping options, coupons), a
// page of each, and one object's page with its form and the enable / disable button.

type Item = CatalogueItem<CatalogueTable>;
type Errors = { path: string; message: string }[];

const groupUrl = (group: GroupName) => `/dashboard/catalogue/${group}/`;
export const itemUrl = (group: GroupName, id: string) => `/dashboard/catalogue/${group}/${id}/`;

function Tabs({ text, group }: { text: DashboardText; group: GroupName }) {
  const { t } = text;
  return (
    <nav class="tabs" aria-label={t('cat.tabs')}>
      <ul>
        {GROUPS.map((g) => (
          <li key={g}>
            <a href={groupUrl(g)} aria-current={g === group ? 'page' : undefined}>
              {t(`cat.group.${g}`)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** What tells one object from another at a glance: its price, amount, rate or value. */
function summaryOf(text: DashboardText, group: GroupName, row: Item, api: Record<string, unknown>): string {
  const r = row as Record<string, unknown>;
  const currency = typeof r.currency === 'string' ? r.currency : null;
  const money = (units: unknown) => (currency ? text.money(Number(units), currency) : String(api.price));
  switch (group) {
    case 'product':
      return money(r.price);
    case 'plan':
      return pricePerPeriod(text, money(r.amount), r.interval as Interval, Number(r.interval_count));
    case 'tax':
      return `${String(api.rate)} %`;
    case 'shipping':
      return money(r.price);
    case 'coupon':
      return r.kind === 'fixed' ? money(r.value) : `${String(api.value)} %`;
  }
}

export function catalogueListPage(p: Signed & { group: GroupName; rows: { row: Item; api: Record<string, unknown> }[]; page: number; pages: number }): string {
  const { text, group } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('cat.title'), active: 'catalogue' },
    <>
      <Tabs text={text} group={group} />
      <h2>{t(`cat.group.${group}`)}</h2>
      {roleAtLeast(p.session.current.role, 'admin') && (
        <p>
          <a href={`${groupUrl(group)}new/`}>{t(`cat.new.${group}`)}</a>
        </p>
      )}
      {p.rows.length === 0 ? (
        <p class="empty">{t('cat.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t(`cat.group.${group}`)}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('cat.field.name')}</th>
                <th scope="col">{t('cat.summary')}</th>
                <th scope="col">{t('cat.state')}</th>
                <th scope="col">{t('tx.created')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map(({ row, api }) => (
                <tr key={row.id} data-id={row.id}>
                  <td>
                    <a href={itemUrl(group, row.id)}>{row.name}</a>
                  </td>
                  <td>{summaryOf(text, group, row, api)}</td>
                  <td>{row.enabled ? t('cat.enabled') : t('cat.disabled')}</td>
                  <td>{text.dateTime(row.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `${groupUrl(group)}?page=${n}`} />
    </>,
  );
}

const fieldLabel = (text: DashboardText, name: string) =>
  text.t(`cat.field.${name as FieldName}`, { defaultValue: name });

function Problems({ text, errors }: { text: DashboardText; errors: Errors }) {
  return (
    <div class="notice error" role="alert">
      <p>{text.t('cat.invalid')}</p>
      <ul>
        {errors.map((e) => (
          <li key={e.path}>{`${fieldLabel(text, e.path)}: ${e.message}`}</li>
        ))}
      </ul>
    </div>
  );
}

function Field({ text, field: f, value, error }: { text: DashboardText; field: FormField; value: string; error?: string }) {
  const id = `f-${f.name}`;
  const common = { id, name: f.name, required: f.required, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': error ? `${id}-error` : undefined };
  return (
    <div class="field">
      <label for={id}>{fieldLabel(text, f.name)}</label>
      {f.kind === 'select' ? (
        <select {...common}>
          {f.options.map((o) => (
            <option key={o} value={o} selected={o === value}>
              {text.t(`cat.option.${o}` as 'cat.option.day', { defaultValue: o })}
            </option>
          ))}
        </select>
      ) : f.kind === 'textarea' ? (
        <textarea {...common} rows={3}>
          {value}
        </textarea>
      ) : (
        <input {...common} value={value} inputMode={f.kind === 'number' ? 'decimal' : undefined} autocomplete="off" />
      )}
      {error && (
        <p id={`${id}-error`} class="hint error">
          {error}
        </p>
      )}
    </div>
  );
}

function ItemForm(p: Signed & { action: string; fields: FormField[]; values: Record<string, string>; errors: Errors; submit: string }) {
  const errorOf = (name: string) => p.errors.find((e) => e.path === name)?.message;
  return (
    <form method="post" action={p.action} class="card">
      <Csrf token={p.session.csrf} />
      {p.fields.map((f) => (
        <Field key={f.name} text={p.text} field={f} value={p.values[f.name] ?? ''} error={errorOf(f.name)} />
      ))}
      <button type="submit" class="primary">
        {p.submit}
      </button>
    </form>
  );
}

export function catalogueNewPage(p: Signed & { group: GroupName; fields: FormField[]; values: Record<string, string>; errors: Errors }): string {
  const { text, group } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t(`cat.new.${group}`), active: 'catalogue' },
    <>
      <p>
        <a href={groupUrl(group)}>{t(`cat.group.${group}`)}</a>
      </p>
      {p.errors.length > 0 && <Problems text={text} errors={p.errors} />}
      <ItemForm {...p} action={groupUrl(group)} submit={t('cat.create')} />
    </>,
  );
}

export function catalogueItemPage(
  p: Signed & { group: GroupName; row: Item; fields: FormField[]; values: Record<string, string>; errors: Errors; notice?: string },
): string {
  const { text, group, row } = p;
  const { t } = text;
  const canEdit = roleAtLeast(p.session.current.role, 'admin');
  return renderPage(
    { text, session: p.session, title: row.name, active: 'catalogue' },
    <>
      <p>
        <a href={groupUrl(group)}>{t(`cat.group.${group}`)}</a>
      </p>
      {p.notice && (
        <p class="notice info" role="status">
          {p.notice}
        </p>
      )}
      {p.errors.length > 0 && <Problems text={text} errors={p.errors} />}
      <dl class="facts">
        <dt>{t('cat.id')}</dt>
        <dd>{row.id}</dd>
        <dt>{t('cat.state')}</dt>
        <dd>{row.enabled ? t('cat.enabled') : t('cat.disabled')}</dd>
        <dt>{t('tx.created')}</dt>
        <dd>{text.dateTime(row.created_at)}</dd>
        {!canEdit && p.fields.map((f) => [<dt key={`${f.name}-t`}>{fieldLabel(text, f.name)}</dt>, <dd key={`${f.name}-d`}>{p.values[f.name] || '—'}</dd>])}
      </dl>
      {canEdit && (
        <>
          <h2>{t('cat.edit')}</h2>
          <ItemForm {...p} action={itemUrl(group, row.id)} submit={t('cat.save')} />
          <form method="post" action={`${itemUrl(group, row.id)}enabled/`} class="row-actions">
            <Csrf token={p.session.csrf} />
            <input type="hidden" name="enabled" value={row.enabled ? 'false' : 'true'} />
            <button type="submit">{row.enabled ? t('cat.disable') : t('cat.enable')}</button>
          </form>
          <p class="hint">{t('cat.enabledHint')}</p>
        </>
      )}
    </>,
  );
}
