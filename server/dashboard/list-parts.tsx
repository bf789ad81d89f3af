import type { DashboardText } from './i18n';

// What the dashboard's lists share: the pager under them, and the notice of the last action.

/** Page `page` of `pages`, with links to its neighbours; `href` keeps the list's filters. */
export function Pager({ text, page, pages, href }: { text: DashboardText; page: number; pages: number; href: (page: number) => string }) {
  const { t } = text;
  return (
    <nav class="pager" aria-label={t('tx.page', { page, pages })}>
      <span>{t('tx.page', { page, pages })}</span>
      {/* A page past the end (an old link, a typed number) leads back to the last one. */}
      {page > pages ? <a href={href(pages)}>{t('tx.lastPage')}</a> : page > 1 && <a href={href(page - 1)}>{t('tx.previous')}</a>}
      {page < pages && <a href={href(page + 1)}>{t('tx.next')}</a>}
    </nav>
  );
}

export interface ActionNotice {
  text: string;
  error: boolean;
}

/** What the last action came to: an error is an alert, anything else a status. */
export function Notice({ notice }: { notice: ActionNotice | undefined }) {
  if (!notice) return null;
  return (
    <p class={`notice ${notice.error ? 'error' : 'info'}`} role={notice.error ? 'alert' : 'status'}>
      {notice.text}
    </p>
  );
}
