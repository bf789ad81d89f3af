import type { Membership } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';

// A link into one of the member's other environments (a team email's link names its
// environment with `?environment=`): the page says whose it is and switches on a click, a
// POST with the session's CSRF token like the menu's switcher, then shows the page linked
// to. A GET never changes the session: a link someone else crafted cannot move a member's
// dashboard to another environment behind their back.

/** The dashboard path a switch may go on to: ours, no other host (`//`), nothing to escape. */
export const NEXT_PATH = /^\/dashboard\/(?!\/)[A-Za-z0-9/_.~%=&?-]*$/;

/** The link's page without its `environment` parameter: where the switch goes on to. */
export function linkedPath(originalUrl: string): string {
  const url = new URL(originalUrl, 'http://dashboard.invalid');
  url.searchParams.delete('environment');
  const path = url.pathname + url.search;
  return NEXT_PATH.test(path) ? path : '/dashboard/';
}

export function environmentLinkPage(text: DashboardText, session: ActiveSession, target: Membership, next: string): string {
  const { t } = text;
  const name = (m: Membership) => `${m.environment_name} (${t(`env.mode.${m.environment_mode}`)})`;
  return renderPage(
    { text, title: t('env.link.title'), session },
    <>
      <p>{t('env.link.body', { target: name(target), current: name(session.current) })}</p>
      <form method="post" action="/dashboard/environment/">
        <Csrf token={session.csrf} />
        <input type="hidden" name="environment" value={target.environment_id} />
        <input type="hidden" name="next" value={next} />
        <button type="submit" class="primary">
          {t('env.link.switch', { target: target.environment_name })}
        </button>
      </form>
    </>,
  );
}
