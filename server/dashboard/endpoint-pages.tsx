import type { StoredEndpoint } from '../store/webhook-endpoints';
import { roleAtLeast } from '../store/users';
import { Attempts, type AttemptsPage } from './endpoint-attempts';
import { EVENT_GROUPS, type EndpointValues } from './endpoint-form';
import type { DashboardKey, DashboardText } from './i18n';
import { ROLL_WINDOWS_H } from './keys-page';
import { Csrf, renderPage } from './layout';
import { Notice, Pager } from './list-parts';
import type { Signed } from './sale-pages';

// Webhook endpoints: the list, one endpoint with its form and actions, the form of a new
// one, and the confirmation of a delete. A secret appears only in the answer that made it.

export type Errors = { path: string; message: string }[];
export type EndpointNotice = 'created' | 'rolled' | 'saved' | 'enabled' | 'disabled' | 'deleted' | 'resent' | 'busy';

const BASE = '/dashboard/webhook-endpoints/';
export const endpointUrl = (id: string) => `${BASE}${id}/`;

function stateOf(text: DashboardText, e: StoredEndpoint): string {
  if (e.enabled) return text.t('ep.enabled');
  return e.disabled_reason === 'failing' ? text.t('ep.failing') : text.t('ep.disabled');
}

const eventsOf = (text: DashboardText, events: string[]) => (events.includes('*') ? text.t('ep.allEvents') : events.join(', '));

const doneNotice = (text: DashboardText, done: EndpointNotice | undefined) => done && { text: text.t(`ep.done.${done}`), error: done === 'busy' };

/** The empty list's call to action: the new endpoint's form for those who may add one, else who may. */
function AddFirst({ text, canAdd }: { text: DashboardText; canAdd: boolean }) {
  const { t } = text;
  return (
    <div class="empty">
      <p>{t('ep.none')}</p>
      {canAdd ? (
        <p>
          <a class="button primary" href={`${BASE}new/`}>
            {t('ep.add')}
          </a>
        </p>
      ) : (
        <p>{t('ep.addWho')}</p>
      )}
    </div>
  );
}

export function endpointsPage(p: Signed & { endpoints: StoredEndpoint[]; page: number; pages: number; done?: EndpointNotice }): string {
  const { text } = p;
  const { t } = text;
  const canAdd = roleAtLeast(p.session.current.role, 'admin');
  return renderPage(
    { text, session: p.session, title: t('ep.title'), active: 'endpoints' },
    <>
      <Notice notice={doneNotice(text, p.done)} />
      {canAdd && p.endpoints.length > 0 && (
        <p>
          <a href={`${BASE}new/`}>{t('ep.new')}</a>
        </p>
      )}
      {p.endpoints.length === 0 ? (
        <AddFirst text={text} canAdd={canAdd} />
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('ep.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('ep.url')}</th>
                <th scope="col">{t('ep.description')}</th>
                <th scope="col">{t('ep.events')}</th>
                <th scope="col">{t('ep.state')}</th>
                <th scope="col">{t('ep.created')}</th>
              </tr>
            </thead>
            <tbody>
              {p.endpoints.map((e) => (
                <tr key={e.id} data-id={e.id}>
                  <td class="url">
                    <a href={endpointUrl(e.id)}>{e.url}</a>
                  </td>
                  <td>{e.description ?? '—'}</td>
                  <td class="url">{eventsOf(text, e.enabled_events)}</td>
                  <td>{stateOf(text, e)}</td>
                  <td>{text.dateTime(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `${BASE}?page=${n}`} />
    </>,
  );
}

const FIELD_KEYS: Record<string, DashboardKey> = {
  url: 'ep.url',
  description: 'ep.description',
  enabled_events: 'ep.events',
  overlap_hours: 'keys.rollWindow',
  enabled: 'ep.state',
};
/** A field's label for an error's path (`enabled_events.2` is the events' field). */
const fieldLabel = (text: DashboardText, path: string) => {
  const key = FIELD_KEYS[path.split('.')[0]!];
  return key ? text.t(key) : path;
};

function Problems({ text, errors }: { text: DashboardText; errors: Errors }) {
  return (
    <div class="notice error" role="alert">
      <p>{text.t('ep.invalid')}</p>
      <ul>
        {errors.map((e, i) => (
          <li key={i}>{`${fieldLabel(text, e.path)}: ${e.message}`}</li>
        ))}
      </ul>
    </div>
  );
}

function Check({ value, checked, label }: { value: string; checked: boolean; label: string }) {
  const id = value === '*' ? 'ev-all' : `ev-${value.replace(/[^a-z_]/g, '-')}`;
  return (
    <div class="check">
      <input type="checkbox" id={id} name="events" value={value} checked={checked} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** Every event type by family, and "all events" (which also takes types added later). */
function EventPicker({ text, events, error }: { text: DashboardText; events: string[]; error: boolean }) {
  const { t } = text;
  return (
    <fieldset class="events-picker" aria-invalid={error ? 'true' : undefined}>
      <legend>{t('ep.events')}</legend>
      <Check value="*" checked={events.includes('*')} label={t('ep.allEvents')} />
      <p class="hint">{t('ep.allHint')}</p>
      {EVENT_GROUPS.map((g) => (
        <fieldset key={g.family}>
          <legend>{g.family}</legend>
          {g.types.map((type) => (
            <Check key={type} value={type} checked={events.includes(type)} label={type} />
          ))}
        </fieldset>
      ))}
    </fieldset>
  );
}

function EndpointForm(p: Signed & { action: string; values: EndpointValues; errors: Errors; submit: string }) {
  const { t } = p.text;
  const invalid = (name: string) => (p.errors.some((e) => e.path.split('.')[0] === name) ? ('true' as const) : undefined);
  return (
    <form method="post" action={p.action} class="card">
      <Csrf token={p.session.csrf} />
      <div class="field">
        <label for="ep-url">{t('ep.url')}</label>
        <input id="ep-url" name="url" type="url" required value={p.values.url} autocomplete="off" aria-invalid={invalid('url')} />
      </div>
      <div class="field">
        <label for="ep-description">{t('ep.description')}</label>
        <textarea id="ep-description" name="description" rows={2} aria-invalid={invalid('description')}>
          {p.values.description}
        </textarea>
      </div>
      <EventPicker text={p.text} events={p.values.events} error={invalid('enabled_events') !== undefined} />
      <button type="submit" class="primary">
        {p.submit}
      </button>
    </form>
  );
}

export function endpointNewPage(p: Signed & { values: EndpointValues; errors: Errors }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('ep.new'), active: 'endpoints' },
    <>
      <p>
        <a href={BASE}>{t('ep.title')}</a>
      </p>
      {p.errors.length > 0 && <Problems text={text} errors={p.errors} />}
      <EndpointForm {...p} action={BASE} submit={t('ep.create')} />
    </>,
  );
}

function Facts({ text, endpoint: e }: { text: DashboardText; endpoint: StoredEndpoint }) {
  const { t } = text;
  return (
    <dl class="facts">
      <dt>{t('ep.id')}</dt>
      <dd>{e.id}</dd>
      <dt>{t('ep.url')}</dt>
      <dd>{e.url}</dd>
      <dt>{t('ep.description')}</dt>
      <dd>{e.description ?? '—'}</dd>
      <dt>{t('ep.events')}</dt>
      <dd>{eventsOf(text, e.enabled_events)}</dd>
      <dt>{t('ep.state')}</dt>
      <dd data-testid="endpoint-state">{stateOf(text, e)}</dd>
      {e.previous_expires_at && (
        <>
          <dt>{t('ep.rolledUntil')}</dt>
          <dd>{text.dateTime(e.previous_expires_at)}</dd>
        </>
      )}
      <dt>{t('ep.created')}</dt>
      <dd>{text.dateTime(e.created_at)}</dd>
    </dl>
  );
}

/** What an admin may do besides editing: enable or disable, roll the secret, delete. */
function Actions({ text, session, endpoint: e }: Signed & { endpoint: StoredEndpoint }) {
  const { t } = text;
  return (
    <div class="row-actions">
      <form method="post" action={`${endpointUrl(e.id)}enabled/`}>
        <Csrf token={session.csrf} />
        <input type="hidden" name="enabled" value={e.enabled ? 'false' : 'true'} />
        <button type="submit">{e.enabled ? t('ep.disable') : t('ep.enable')}</button>
      </form>
      <form method="post" action={`${endpointUrl(e.id)}roll/`}>
        <Csrf token={session.csrf} />
        <label for="ep-window">{t('keys.rollWindow')}</label>
        <select id="ep-window" name="overlap_hours">
          {ROLL_WINDOWS_H.map((h) => (
            <option key={h} value={String(h)} selected={h === 24}>
              {t(`keys.window.${h}`)}
            </option>
          ))}
        </select>
        <button type="submit">{t('ep.roll')}</button>
      </form>
      <form method="post" action={`${endpointUrl(e.id)}delete/`}>
        <Csrf token={session.csrf} />
        <button type="submit">{t('ep.delete')}</button>
      </form>
    </div>
  );
}

/** `attempts`: the endpoint's recent attempts (not on the answers that show a new secret once). */
export function endpointPage(
  p: Signed & { endpoint: StoredEndpoint; values: EndpointValues; errors: Errors; notice?: EndpointNotice; secret?: string; attempts?: AttemptsPage },
): string {
  const { text, endpoint: e } = p;
  const { t } = text;
  const canChange = roleAtLeast(p.session.current.role, 'admin');
  return renderPage(
    { text, session: p.session, title: e.description ?? e.url, active: 'endpoints' },
    <>
      <p>
        <a href={BASE}>{t('ep.title')}</a>
      </p>
      <Notice notice={doneNotice(text, p.notice)} />
      {p.secret && (
        <div class="notice info">
          <p>{t('ep.secretOnce', { url: e.url })}</p>
          <p>
            <code class="secret" data-testid="endpoint-secret">{p.secret}</code>
          </p>
        </div>
      )}
      {p.errors.length > 0 && <Problems text={text} errors={p.errors} />}
      <Facts text={text} endpoint={e} />
      <p>
        <a href={`/dashboard/events/?object_id=${e.id}`}>{t('ep.ownEvents')}</a>
      </p>
      {p.attempts && <Attempts text={text} session={p.session} href={endpointUrl(e.id)} page={p.attempts} />}
      {canChange && (
        <>
          <Actions {...p} endpoint={e} />
          <h2>{t('ep.edit')}</h2>
          <EndpointForm {...p} action={endpointUrl(e.id)} submit={t('ep.save')} />
        </>
      )}
    </>,
  );
}

export function deleteConfirmPage(p: Signed & { endpoint: StoredEndpoint }): string {
  const { text, session, endpoint: e } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('ep.deleteTitle'), active: 'endpoints' },
    <>
      <p>{t('ep.deleteConfirm', { url: e.url })}</p>
      <div class="row-actions">
        <form method="post" action={`${endpointUrl(e.id)}delete/`}>
          <Csrf token={session.csrf} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="primary">
            {t('ep.deleteSubmit')}
          </button>
        </form>
        <a href={endpointUrl(e.id)}>{t('ep.cancel')}</a>
      </div>
    </>,
  );
}
