import { TEAM_NOTIFICATIONS, type TeamChoices } from '../domain/team-notifications';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';

// A member's own choice of the team's emails in the current environment (docs/dashboard.md
// "Notifications"): one checkbox per email, saved for them alone.

export interface NotificationPageProps {
  text: DashboardText;
  session: ActiveSession;
  choices: TeamChoices;
  saved?: boolean;
  /** The fields the form did not understand: nothing was saved. */
  invalid?: string[];
}

export function notificationPage(p: NotificationPageProps): string {
  const { text, session } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('notif.title'), active: 'notifications' },
    <>
      {p.invalid && (
        <p class="notice error" role="alert">
          {t('notif.invalid', { fields: p.invalid.join(', ') })}
        </p>
      )}
      {p.saved && (
        <p class="notice info" role="status">
          {t('notif.saved')}
        </p>
      )}
      <p>{t('notif.intro', { environment: session.current.environment_name })}</p>
      <form method="post" action="/dashboard/account/notifications/" class="card">
        <Csrf token={session.csrf} />
        <fieldset>
          <legend>{t('notif.legend')}</legend>
          {TEAM_NOTIFICATIONS.map((kind) => (
            <div class="check">
              <input type="checkbox" id={`n-${kind}`} name={kind} value="on" checked={p.choices[kind]} />
              <label for={`n-${kind}`}>{t(`notif.${kind}`)}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit" class="primary">
          {t('notif.save')}
        </button>
      </form>
    </>,
  );
}
