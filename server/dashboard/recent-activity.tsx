import type { RecentEvent } from '../store/event-list';
import { EventLink } from './event-words';
import type { DashboardText } from './i18n';

/** How many of the newest events the Overview shows: a morning's glance, the rest on the events page. */
export const RECENT_EVENTS = 8;

/**
 * What happened last in the shop (payments, refunds, disputes, payouts…), newest first, each
 * in words with its time and a link to it: the Overview's activity feed, read from the
 * events the API emits, so it says what the webhooks say.
 */
export function RecentActivity({ text, events }: { text: DashboardText; events: RecentEvent[] }) {
  const { t } = text;
  if (events.length === 0) return null;
  return (
    <section aria-labelledby="home-activity" data-testid="activity">
      <h2 id="home-activity">{t('overview.activity')}</h2>
      <ul class="activity">
        {events.map((e) => (
          <li key={e.id}>
            <time datetime={e.created_at}>{text.dateTime(e.created_at)}</time> <EventLink text={text} event={e} />
          </li>
        ))}
      </ul>
      <p>
        <a href="/dashboard/events/">{t('overview.activityAll')}</a>
      </p>
    </section>
  );
}
