import type { Client, ClientIban } from '../store/clients';
import type { ClientDocumentRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';
import { Notice, Pager } from './list-parts';

// Clients: the list with its search by name or email, and one client with its IBANs and
// its documents, whose pending ones an admin accepts or rejects here.

type Listed = Pick<Client, 'id' | 'name' | 'email' | 'client_id' | 'enabled' | 'enabled_by_compliance' | 'created_at'>;

export const MAX_CLIENT_SEARCH = 200;
export const clientUrl = (id: string) => `/dashboard/clients/${id}/`;

/** An IBAN shown by its country and last four characters: enough to tell them apart. */
const maskedIban = (iban: string) => `${iban.slice(0, 2)} •••• ${iban.slice(-4)}`;

const yesNo = (text: DashboardText, on: boolean) => (on ? text.t('cl.yes') : text.t('cl.no'));

function Search({ text, q }: { text: DashboardText; q: string }) {
  const { t } = text;
  return (
    <form method="get" action="/dashboard/clients/" class="filters" aria-label={t('cl.search')}>
      <div class="search">
        <label for="c-q">{t('cl.search')}</label>
        <input id="c-q" name="q" type="search" value={q} maxLength={MAX_CLIENT_SEARCH} autocomplete="off" />
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}

export function clientsPage(p: Signed & { q: string; rows: Listed[]; page: number; pages: number }): string {
  const { text } = p;
  const { t } = text;
  const query = (page: number) => `?${new URLSearchParams({ ...(p.q ? { q: p.q } : {}), page: String(page) })}`;
  return renderPage(
    { text, session: p.session, title: t('cl.title'), active: 'clients' },
    <>
      <Search text={text} q={p.q} />
      {p.rows.length === 0 ? (
        <p class="empty">{p.q ? t('cl.noMatch') : t('cl.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('cl.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('cl.name')}</th>
                <th scope="col">{t('cl.email')}</th>
                <th scope="col">{t('cl.compliance')}</th>
                <th scope="col">{t('tx.created')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((c) => (
                <tr key={c.id}>
                  <td>
                    <a href={clientUrl(c.id)}>{c.name}</a>
                  </td>
                  <td class="url">{c.email ?? '—'}</td>
                  <td>{c.enabled_by_compliance ? t('cl.compliant') : t('cl.notCompliant')}</td>
                  <td>{text.dateTime(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `/dashboard/clients/${query(n)}`} />
    </>,
  );
}

function Ibans({ text, ibans }: { text: DashboardText; ibans: ClientIban[] }) {
  const { t } = text;
  if (ibans.length === 0) return <p class="empty">{t('cl.noIbans')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('cl.ibans')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('cl.iban')}</th>
            <th scope="col">{t('cl.ibanId')}</th>
            <th scope="col">{t('cl.enabled')}</th>
            <th scope="col">{t('cl.compliance')}</th>
          </tr>
        </thead>
        <tbody>
          {ibans.map((i) => (
            <tr key={i.id} data-iban={i.id}>
              <td>{maskedIban(i.iban)}</td>
              <td>{i.iban_id ?? '—'}</td>
              <td>{yesNo(text, i.enabled)}</td>
              <td>{i.enabled_by_compliance ? t('cl.compliant') : t('cl.notCompliant')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Review({ text, session, doc }: Signed & { doc: ClientDocumentRow }) {
  const { t } = text;
  const base = `/dashboard/documents/${doc.id}/`;
  return (
    <div class="row-actions">
      <form method="post" action={`${base}accept/`}>
        <Csrf token={session.csrf} />
        <button type="submit" class="primary" aria-label={t('cl.acceptNamed', { name: doc.file_name })}>
          {t('cl.accept')}
        </button>
      </form>
      <form method="post" action={`${base}reject/`}>
        <Csrf token={session.csrf} />
        <label for={`reason-${doc.id}`}>{t('cl.reason')}</label>
        <input id={`reason-${doc.id}`} name="reason" required maxLength={500} autocomplete="off" />
        <button type="submit" aria-label={t('cl.rejectNamed', { name: doc.file_name })}>
          {t('cl.reject')}
        </button>
      </form>
    </div>
  );
}

function Documents({ text, session, docs }: Signed & { docs: ClientDocumentRow[] }) {
  const { t } = text;
  if (docs.length === 0) return <p class="empty">{t('cl.noDocuments')}</p>;
  const canReview = roleAtLeast(session.current.role, 'admin');
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('cl.documents')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('cl.file')}</th>
            <th scope="col">{t('cl.docType')}</th>
            <th scope="col">{t('cl.status')}</th>
            <th scope="col">{t('tx.created')}</th>
            {canReview && <th scope="col">{t('cl.review')}</th>}
          </tr>
        </thead>
        <tbody>
          {docs.map((d) => (
            <tr key={d.id} data-document={d.id}>
              <td class="url">{d.file_name}</td>
              <td>{d.type}</td>
              <td>
                {t(`cl.status.${d.status}`)}
                {d.status_reason && <span class="hint">{` — ${d.status_reason}`}</span>}
              </td>
              <td>{text.dateTime(d.created_at)}</td>
              {canReview && <td>{d.status === 'pending' ? <Review text={text} session={session} doc={d} /> : '—'}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function clientPage(p: Signed & { client: Client; ibans: ClientIban[]; docs: ClientDocumentRow[]; notice?: { text: string; error: boolean } }): string {
  const { text, client: c } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: c.name, active: 'clients' },
    <>
      <p>
        <a href="/dashboard/clients/">{t('cl.title')}</a>
      </p>
      <Notice notice={p.notice} />
      <dl class="facts">
        <dt>{t('cat.id')}</dt>
        <dd>{c.id}</dd>
        <dt>{t('cl.clientId')}</dt>
        <dd>{c.client_id ?? '—'}</dd>
        <dt>{t('cl.email')}</dt>
        <dd>{c.email ?? '—'}</dd>
        <dt>{t('cl.enabled')}</dt>
        <dd>{yesNo(text, c.enabled)}</dd>
        <dt>{t('cl.compliance')}</dt>
        <dd data-compliance={String(c.enabled_by_compliance)}>{c.enabled_by_compliance ? t('cl.compliant') : t('cl.notCompliant')}</dd>
      </dl>
      <h2>{t('cl.ibans')}</h2>
      <Ibans text={text} ibans={p.ibans} />
      <h2>{t('cl.documents')}</h2>
      <Documents text={text} session={p.session} docs={p.docs} />
    </>,
  );
}
