import { VIEW_NAME_MAX } from '../store/saved-views';
import type { SavedViewRow } from '../store/schema';
import { Csrf } from './layout';
import type { Signed } from './sale-pages';
import { givenFilters, type TxFilters } from './transaction-filters';

// Above the payments list: the member's saved views (each a link to the list with its
// filters, and its Delete), and, while filters are in use, a form that saves them by name.

export function SavedViews({ text, session, views, filters, canSave }: Signed & { views: SavedViewRow[]; filters: TxFilters; canSave: boolean }) {
  const { t } = text;
  if (!views.length && !canSave) return null;
  return (
    <section class="views" aria-labelledby="views-title">
      <h2 id="views-title">{t('views.title')}</h2>
      {views.length > 0 && (
        <ul class="view-list">
          {views.map((v) => (
            <li key={v.id}>
              <a href={`/dashboard/transactions/?${v.query}`}>{v.name}</a>
              <form method="post" action={`/dashboard/transactions/views/${v.id}/delete/`}>
                <Csrf token={session.csrf} />
                <button type="submit" class="quiet">
                  {t('views.delete')}
                  <span class="visually-hidden"> {v.name}</span>
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      {canSave && (
        <form method="post" action="/dashboard/transactions/views/" class="filters">
          <Csrf token={session.csrf} />
          {givenFilters(filters).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <div>
            <label for="view-name">{t('views.name')}</label>
            <input id="view-name" name="name" required maxLength={VIEW_NAME_MAX} autocomplete="off" />
          </div>
          <button type="submit">{t('views.save')}</button>
        </form>
      )}
    </section>
  );
}
