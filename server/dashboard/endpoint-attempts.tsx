import { cutText } from '../domain/text-cut';
import type { EndpointAttempt } from '../store/endpoint-attempts';
import { roleAtLeast } from '../store/users';
import type { DashboardText } from './i18n';
import { Csrf } from './layout';
import type { Signed } from './sale-pages';

// A webhook endpoint's recent attempts on its page: when, the event (a link to its page),
// the result, the HTTP status or why there was none, how long it took and the start of the
// answer (the merchant's server's own text: escaped as all text is, and cut), and for
// admins "Send again" on a failed one, which queues that event's delivery to this endpoint.

/** How much of an answer a row shows; the event's Webhooks page shows more (500). */
const ANSWER_CUT = 120;

export interface AttemptsPage {
  rows: EndpointAttempt[];
  /** More attempts follow the last row. */
  more: boolean;
  /** A page after the first (`before` given): link back to the newest. */
  later: boolean;
}

const attemptsHref = (endpointHref: string, before?: string) => `${endpointHref}${before ? `?before=${before}` : ''}#attempts`;

function Retry({ text, csrf, href, attempt: a }: { text: DashboardText; csrf: string; href: string; attempt: EndpointAttempt }) {
  const { t } = text;
  return (
    <form method="post" action={`${href}attempts/${a.id}/retry/`}>
      <Csrf token={csrf} />
      <button type="submit">
        {t('ep.att.retry')}
        {/* Every failed row has one: the name says which. */}
        <span class="visually-hidden"> {t('ep.att.retryWhich', { type: a.type, when: text.dateTime(a.created_at) })}</span>
      </button>
    </form>
  );
}

function Row({ text, csrf, href, attempt: a, canRetry }: { text: DashboardText; csrf: string; href: string; attempt: EndpointAttempt; canRetry: boolean }) {
  const { t } = text;
  return (
    <tr data-attempt={a.id} data-result={a.result}>
      <td>
        <time datetime={a.created_at}>{text.dateTime(a.created_at)}</time>
      </td>
      <td>
        <a href={`/dashboard/events/${a.event_id}/`}>
          <code>{a.type}</code>
        </a>
      </td>
      <td>{t(`ep.att.result.${a.result}`)}</td>
      <td class="url">{a.status_code ?? a.error ?? '—'}</td>
      <td>{t('wh.ms', { ms: a.duration_ms })}</td>
      <td class="url">{a.response_body ? cutText(a.response_body, ANSWER_CUT) : '—'}</td>
      {canRetry && <td>{a.result !== 'delivered' && <Retry text={text} csrf={csrf} href={href} attempt={a} />}</td>}
    </tr>
  );
}

export function Attempts({ text, session, href, page }: Signed & { href: string; page: AttemptsPage }) {
  const { t } = text;
  const canRetry = roleAtLeast(session.current.role, 'admin');
  const { rows } = page;
  return (
    // Not a landmark of its own: the table's scrolling region already is one, by the same name.
    <section>
      <h2 id="attempts">{t('ep.attempts')}</h2>
      {rows.length === 0 ? (
        <p class="empty">{page.later ? t('ep.att.noOlder') : t('ep.att.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('ep.attempts')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('ep.att.when')}</th>
                <th scope="col">{t('ep.att.event')}</th>
                <th scope="col">{t('ep.att.result')}</th>
                <th scope="col">{t('ep.att.answer')}</th>
                <th scope="col">{t('ep.att.duration')}</th>
                <th scope="col">{t('ep.att.body')}</th>
                {canRetry && <th scope="col">{t('ep.att.action')}</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <Row key={a.id} text={text} csrf={session.csrf} href={href} attempt={a} canRetry={canRetry} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(page.later || page.more) && (
        <nav class="pager" aria-label={t('ep.att.pages')}>
          {page.later && <a href={attemptsHref(href)}>{t('ep.att.newest')}</a>}
          {page.more && <a href={attemptsHref(href, rows.at(-1)!.id)}>{t('ep.att.older')}</a>}
        </nav>
      )}
    </section>
  );
}
