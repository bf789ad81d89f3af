import type { StoredEvent } from '../store/event-list';
import { EVENT_TYPES } from '../domain/event-types';
import type { EventDeliveryRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import { GROUPS, type GroupName } from './catalogue-form';
import { itemUrl } from './catalogue-pages';
import { endpointUrl } from './endpoint-pages';
import { EventLink, eventWords } from './event-words';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { Notice, Pager } from './list-parts';
import type { Signed } from './sale-pages';

// Events: the list with its filters, and one event with the object it is about, its
// payload as delivered, each delivery and the resend.

export type EventNotice = 'resent' | 'busy' | 'noDestination' | 'endpointOff';

const BASE = '/dashboard/events/';
const eventUrl = (id: string) => `${BASE}${id}/`;

/**
 * The dashboard page of the object an event is about, when there is one (and the event did
 * not delete it); `endpoints`: the webhook endpoints that still exist.
 */
function objectHref(event: Pick<StoredEvent, 'type' | 'object_id' | 'payload'>, endpoints: ReadonlySet<string>): string | null {
  const [family, change] = event.type.split('.') as [string, string];
  const data = event.payload.data;
  const id = event.object_id;
  if (change === 'deleted') return null;
  if ((GROUPS as readonly string[]).includes(family)) return itemUrl(family as GroupName, id);
  switch (family) {
    case 'transaction':
      return `/dashboard/transactions/${id}/`;
    // A sale is shown on its transaction's page; a wallet's event is about an entry of the wallet.
    case 'sale':
      return typeof data.transaction_id === 'string' ? `/dashboard/transactions/${data.transaction_id}/` : null;
    case 'wallet':
      return typeof data.wallet === 'string' ? `/dashboard/wallets/${data.wallet}/` : null;
    case 'client':
      return `/dashboard/clients/${id}/`;
    case 'webhook_endpoint':
      return endpoints.has(id) ? endpointUrl(id) : null;
    default:
      return null;
  }
}

type Filters = { type?: string; object_id?: string };

const listHref = (f: Filters, page: number) => {
  const params = new URLSearchParams();
  if (f.type) params.set('type', f.type);
  if (f.object_id) params.set('object_id', f.object_id);
  if (page > 1) params.set('page', String(page));
  const s = params.toString();
  return s ? `${BASE}?${s}` : BASE;
};

function FilterForm({ text, filters, typed }: { text: DashboardText; filters: Filters; typed: string }) {
  const { t } = text;
  return (
    <form method="get" action={BASE} class="filters" aria-label={t('ev.filter')}>
      <div>
        <label for="ev-type">{t('ev.type')}</label>
        <select id="ev-type" name="type">
          <option value="">{t('ev.allTypes')}</option>
          {EVENT_TYPES.map((type) => (
            <option key={type} value={type} selected={filters.type === type}>
              {eventWords(text, type)} ({type})
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="ev-object">{t('ev.object')}</label>
        <input id="ev-object" name="object_id" value={typed} maxLength={100} autocomplete="off" aria-describedby="ev-object-hint" />
        <p id="ev-object-hint" class="hint">
          {t('ev.objectHint')}
        </p>
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}

const deliveredCount = (e: StoredEvent) => e.deliveries.filter((d) => d.delivery_status === 'delivered').length;

export function eventsPage(p: Signed & { events: StoredEvent[]; filters: Filters; typed: string; badObject: boolean; page: number; pages: number }): string {
  const { text, filters } = p;
  const { t } = text;
  const filtered = !!(filters.type || filters.object_id);
  return renderPage(
    { text, session: p.session, title: t('ev.title'), active: 'events' },
    <>
      <FilterForm text={text} filters={filters} typed={p.typed} />
      <Notice notice={p.badObject ? { text: t('ev.badObject'), error: false } : undefined} />
      {p.events.length === 0 ? (
        <p class="empty">{filtered ? t('ev.noMatch') : t('ev.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('ev.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('ev.type')}</th>
                <th scope="col">{t('ev.object')}</th>
                <th scope="col">{t('ev.deliveries')}</th>
                <th scope="col">{t('ev.created')}</th>
              </tr>
            </thead>
            <tbody>
              {p.events.map((e) => (
                <tr key={e.id} data-id={e.id}>
                  <td>
                    <EventLink text={text} event={{ id: e.id, type: e.type, data: e.payload.data }} />
                  </td>
                  <td class="url">{e.object_id}</td>
                  <td>{e.deliveries.length ? t('ev.delivered', { done: deliveredCount(e), count: e.deliveries.length }) : t('ev.nowhere')}</td>
                  <td>{text.dateTime(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => listHref(filters, n)} />
    </>,
  );
}

interface Shown extends Signed {
  event: StoredEvent;
  /** How many delivery attempts were made, to every destination. */
  attempts: number;
  /** The ids of the webhook endpoints that still exist. */
  endpoints: Set<string>;
  notice?: EventNotice;
}

// The notify_url first, then the endpoints in the order they were made (their ids are UUIDv7), as the API lists them.
const ordered = (ds: EventDeliveryRow[]) => [...ds].sort((a, b) => (a.endpoint_id ?? '').localeCompare(b.endpoint_id ?? ''));

function Destination({ text, delivery: d, endpoints }: { text: DashboardText; delivery: EventDeliveryRow; endpoints: Set<string> }) {
  const { t } = text;
  if (d.endpoint_id === null) return <>{t('ev.notifyUrl')}</>;
  return endpoints.has(d.endpoint_id) ? <a href={endpointUrl(d.endpoint_id)}>{t('ev.endpoint')}</a> : <>{t('ev.endpointGone')}</>;
}

function Deliveries({ text, event, endpoints, attempts }: Shown) {
  const { t } = text;
  if (event.deliveries.length === 0) return <p>{t('ev.nowhereLong')}</p>;
  return (
    <>
      <div class="scroll" tabindex={0} role="region" aria-label={t('ev.deliveries')}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('ev.destination')}</th>
              <th scope="col">{t('ev.url')}</th>
              <th scope="col">{t('ev.state')}</th>
              <th scope="col">{t('ev.attempts')}</th>
              <th scope="col">{t('ev.when')}</th>
            </tr>
          </thead>
          <tbody>
            {ordered(event.deliveries).map((d) => (
              <tr key={d.id} data-delivery={d.endpoint_id ?? 'notify_url'}>
                <td>
                  <Destination text={text} delivery={d} endpoints={endpoints} />
                </td>
                <td class="url">{d.url}</td>
                <td>{t(`ev.state.${d.delivery_status}`)}</td>
                <td>{d.attempt_count}</td>
                <td>{d.delivered_at ? text.dateTime(d.delivered_at) : d.next_attempt_at ? t('ev.next', { when: text.dateTime(d.next_attempt_at) }) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {attempts > 0 && (
        <p>
          <a href={`/dashboard/webhooks/${event.id}/`}>{t('ev.allAttempts', { count: attempts })}</a>
        </p>
      )}
    </>
  );
}

function Resend({ text, session, event, endpoints }: Shown) {
  const { t } = text;
  return (
    <form method="post" action={`${eventUrl(event.id)}retry/`} class="card">
      <Csrf token={session.csrf} />
      <label for="ev-destination">{t('ev.retryTo')}</label>
      <select id="ev-destination" name="destination">
        <option value="">{t('ev.retryUndelivered')}</option>
        {ordered(event.deliveries).map((d) => (
          <option key={d.id} value={d.endpoint_id ?? 'notify_url'}>
            {`${d.endpoint_id === null ? t('ev.notifyUrl') : endpoints.has(d.endpoint_id) ? t('ev.endpoint') : t('ev.endpointGone')}: ${d.url}`}
          </option>
        ))}
      </select>
      <button type="submit" class="primary">
        {t('ev.retry')}
      </button>
    </form>
  );
}

const NOTICES = { resent: 'ev.resent', busy: 'ev.busy', noDestination: 'ev.noDestination', endpointOff: 'ev.endpointOff' } as const;

export function eventPage(p: Shown): string {
  const { text, event } = p;
  const { t } = text;
  const href = objectHref(event, p.endpoints);
  return renderPage(
    { text, session: p.session, title: t('ev.detail', { type: event.type }), active: 'events' },
    <>
      <p>
        <a href={BASE}>{t('ev.title')}</a>
      </p>
      <Notice notice={p.notice && { text: t(NOTICES[p.notice]), error: p.notice !== 'resent' }} />
      <dl class="facts">
        <dt>{t('ev.type')}</dt>
        <dd>{event.type}</dd>
        <dt>{t('ev.id')}</dt>
        <dd>{event.id}</dd>
        <dt>{t('ev.created')}</dt>
        <dd>{text.dateTime(event.created_at)}</dd>
        <dt>{t('ev.object')}</dt>
        <dd data-testid="event-object">{href ? <a href={href}>{event.object_id}</a> : event.object_id}</dd>
      </dl>
      <h2>{t('ev.deliveries')}</h2>
      <Deliveries {...p} />
      {roleAtLeast(p.session.current.role, 'admin') && event.deliveries.length > 0 && <Resend {...p} />}
      <h2>{t('ev.payload')}</h2>
      <pre tabindex={0} data-testid="event-payload">
        <code>{JSON.stringify(event.payload, null, 2)}</code>
      </pre>
    </>,
  );
}
