import { Fragment } from 'preact';
import { cutText } from '../domain/text-cut';
import type { ListedDelivery } from '../store/delivery-list';
import type { StoredEvent } from '../store/event-list';
import type { DeliveryAttemptRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';

// Webhook deliveries: every place an event was sent with its last answer, and for one event
// the body sent and each attempt.

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

const EXCERPT = 500;

/** The last attempt's answer as a person reads it: its HTTP status, else why there was none. */
const lastAnswer = (d: ListedDelivery) => (d.last ? (d.last.status_code?.toString() ?? d.last.error ?? '—') : '—');

export function webhooksPage(p: Signed & { deliveries: ListedDelivery[]; page: number; pages: number }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('wh.title'), active: 'webhooks' },
    <>
      {p.deliveries.length === 0 ? (
        <p class="empty">{t('wh.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('wh.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('wh.type')}</th>
                <th scope="col">{t('wh.url')}</th>
                <th scope="col">{t('wh.status')}</th>
                <th scope="col">{t('wh.attempts')}</th>
                <th scope="col">{t('wh.code')}</th>
                <th scope="col">{t('wh.created')}</th>
              </tr>
            </thead>
            <tbody>
              {p.deliveries.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <td>
                    <a href={`/dashboard/webhooks/${d.event_id}/`}>{d.type}</a>
                  </td>
                  <td class="url">{d.url}</td>
                  <td>{d.delivery_status}</td>
                  <td>{d.attempt_count}</td>
                  <td>{lastAnswer(d)}</td>
                  <td>{text.dateTime(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label={t('wh.title')}>
        {p.page > 1 && <a href={`/dashboard/webhooks/?page=${p.page - 1}`}>{t('tx.previous')}</a>}
        {p.page < p.pages && <a href={`/dashboard/webhooks/?page=${p.page + 1}`}>{t('tx.next')}</a>}
      </nav>
    </>,
  );
}

export function webhookPage(p: Signed & { event: Omit<StoredEvent, 'payload'>; body: string; attempts: DeliveryAttemptRow[]; notice?: string }): string {
  const { text, event } = p;
  const { t } = text;
  // Each attempt's destination: the URL its delivery was made to (a notify_url or an endpoint's).
  const urls = new Map(event.deliveries.map((d) => [d.id, d.url]));
  return renderPage(
    { text, session: p.session, title: t('wh.detail', { type: event.type }), active: 'webhooks' },
    <>
      {p.notice && (
        <p class="notice info" role="status">
          {p.notice}
        </p>
      )}
      <dl class="facts">
        {event.deliveries.map((d) => (
          <Fragment key={d.id}>
            <dt>{d.url}</dt>
            <dd data-testid="delivery-status">{d.delivery_status}</dd>
          </Fragment>
        ))}
        <dt>{t('wh.created')}</dt>
        <dd>{text.dateTime(event.created_at)}</dd>
      </dl>
      {event.deliveries.length === 0 && <p>{t('wh.nowhere')}</p>}
      {event.deliveries.length > 0 && roleAtLeast(p.session.current.role, 'admin') && (
        <form method="post" action={`/dashboard/webhooks/${event.id}/resend/`}>
          <Csrf token={p.session.csrf} />
          <button type="submit" class="primary">
            {t('wh.resend')}
          </button>
        </form>
      )}
      <h2>{t('wh.attempts')}</h2>
      {p.attempts.length === 0 ? (
        <p>{t('wh.noAttempts')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('wh.attempts')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('wh.attempt')}</th>
                <th scope="col">{t('wh.destination')}</th>
                <th scope="col">{t('wh.when')}</th>
                <th scope="col">{t('wh.result')}</th>
                <th scope="col">{t('wh.code')}</th>
                <th scope="col">{t('wh.latency')}</th>
                <th scope="col">{t('wh.response')}</th>
              </tr>
            </thead>
            <tbody>
              {p.attempts.map((a) => (
                <tr key={a.id} data-attempt={a.attempt}>
                  <td>{a.attempt}</td>
                  <td class="url">{urls.get(a.delivery_id) ?? '—'}</td>
                  <td>{text.dateTime(a.created_at)}</td>
                  <td>{a.result}</td>
                  <td>{a.status_code ?? '—'}</td>
                  <td>{t('wh.ms', { ms: a.duration_ms })}</td>
                  <td class="url">{cutText(a.response_body ?? a.error ?? '', EXCERPT)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('wh.body')}</h2>
      <pre tabindex={0}>
        <code>{p.body}</code>
      </pre>
    </>,
  );
}
