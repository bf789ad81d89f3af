import type { ComponentChildren } from 'preact';
import { paymentStatus } from '../domain/payment-status';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { Notice } from './list-parts';
import type { Signed } from './sale-pages';
import { objectLink, RESULT_KINDS, type ResultKind, ROWS_PER_KIND, type SearchResults } from './search-results';

// The results of the header's search box, grouped by kind, each row a link to the page that
// shows it. A kind whose own list filters by the same text links to it when there are more.

interface Props extends Signed {
  q: string;
  problem?: string;
  results?: SearchResults;
  /** The clock (a pending transaction past its expiry reads as expired). */
  now: Date;
}

/** The kinds whose list takes the same `q`: "see all" goes there. */
const LISTS: Partial<Record<ResultKind, string>> = { transactions: '/dashboard/transactions/', clients: '/dashboard/clients/' };

const card = (text: DashboardText, brand: string | null, last4: string | null) => (last4 ? `${brand ?? ''} •••• ${last4}`.trim() : text.t('sale.noCard'));
const txLink = (transactionId: string | null, sourceTransactionId: string | null, fallback: string) => {
  const id = transactionId ?? sourceTransactionId;
  return id ? `/dashboard/transactions/${id}/` : fallback;
};

interface Item {
  key: string;
  href: string;
  label: string;
  details: string[];
}

/** Each kind's rows as links with what tells them apart. */
function itemsOf(kind: ResultKind, r: SearchResults, text: DashboardText, now: Date): Item[] {
  const { t, money, dateTime } = text;
  switch (kind) {
    case 'transactions':
      return r.transactions.rows.map((x) => ({
        key: x.id,
        href: `/dashboard/transactions/${x.id}/`,
        label: x.order_id ?? x.id,
        // In the payments list's words: its sale's refunds and dispute, its failed attempts.
        details: [money(x.total_price, x.currency), t(`pay.status.${paymentStatus({ tx: x, sale: r.payments.sales.get(x.id) ?? null, lastAttempt: r.payments.lastAttempts.get(x.id) ?? null }, now)}`), dateTime(x.created_at)],
      }));
    case 'sales':
      return r.sales.rows.map((x) => ({
        key: x.id,
        href: txLink(x.transaction_id, x.source_transaction_id, '/dashboard/authorizations/'),
        label: `${card(text, x.card_brand, x.card_last4)} · ${money(x.amount, x.currency)}`,
        details: [dateTime(x.created_at), ...(x.failure ? [t('search.failed')] : [])],
      }));
    case 'refunds':
      return r.refunds.rows.map((x) => ({
        key: x.id,
        href: txLink(x.transaction_id, x.source_transaction_id, '/dashboard/authorizations/'),
        label: `${card(text, x.card_brand, x.card_last4)} · ${money(x.amount, x.currency)}`,
        details: [dateTime(x.created_at)],
      }));
    case 'disputes':
      return r.disputes.rows.map((x) => ({
        key: x.id,
        href: txLink(x.transaction_id, x.source_transaction_id, '/dashboard/disputes/'),
        label: `${card(text, x.card_brand, x.card_last4)} · ${money(x.amount, x.currency)}`,
        details: [t(`dsp.status.${x.status}`), `${t('dsp.dueBy')}: ${dateTime(x.evidence_due_by)}`],
      }));
    case 'clients':
      return r.clients.rows.map((x) => ({ key: x.id, href: `/dashboard/clients/${x.id}/`, label: x.name, details: [x.email ?? '', x.client_id ?? ''].filter(Boolean) }));
    case 'subscriptions':
      return r.subscriptions.rows.map((x) => ({
        key: x.id,
        href: '/dashboard/subscriptions/',
        label: `${x.plan_name} · ${money(x.amount, x.currency)}`,
        details: [x.subscription_id ?? x.id, x.customer_email ?? '', t(`sub.status.${x.status}` as 'sub.status.active')].filter(Boolean),
      }));
    case 'authorizations':
      return r.authorizations.rows.map((x) => ({
        key: x.id,
        href: '/dashboard/authorizations/',
        label: card(text, x.card_brand, x.card_last4),
        details: [t(`auth.status.${x.status}`), dateTime(x.created_at)],
      }));
  }
}

function Group({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

const List = ({ items }: { items: Item[] }) => (
  <ul class="results">
    {items.map((i) => (
      <li key={i.key}>
        <a href={i.href}>{i.label}</a>
        {i.details.length > 0 && <span class="hint"> {i.details.join(' · ')}</span>}
      </li>
    ))}
  </ul>
);

function Results({ text, q, results, now }: { text: DashboardText; q: string; results: SearchResults; now: Date }) {
  const { t } = text;
  const kinds = RESULT_KINDS.filter((k) => results[k].rows.length > 0);
  if (!kinds.length && !results.byId.length) return <p class="empty">{t('search.nothing', { q })}</p>;
  return (
    <>
      {results.byId.length > 0 && (
        <Group id="found-by-id" title={t('search.byId')}>
          <List items={results.byId.map((o) => ({ key: `${o.kind}-${o.id}`, href: objectLink(o).href, label: t(`search.kind.${o.kind}`), details: [o.id] }))} />
        </Group>
      )}
      {kinds.map((kind) => {
        const list = LISTS[kind];
        return (
          <Group key={kind} id={`found-${kind}`} title={t(`search.group.${kind}`)}>
            <List items={itemsOf(kind, results, text, now)} />
            {results[kind].more &&
              (list ? (
                <p>
                  <a href={`${list}?${new URLSearchParams({ q })}`}>{t('search.seeAll', { kind: t(`search.group.${kind}`) })}</a>
                </p>
              ) : (
                <p class="hint">{t('search.narrow', { count: ROWS_PER_KIND })}</p>
              ))}
          </Group>
        );
      })}
    </>
  );
}

export function searchPage(p: Props): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('search.title'), query: p.q },
    <>
      <Notice notice={p.problem ? { text: p.problem, error: true } : undefined} />
      {p.results ? (
        <>
          <p role="status">{t('search.resultsFor', { q: p.q })}</p>
          <Results text={text} q={p.q} results={p.results} now={p.now} />
        </>
      ) : (
        !p.problem && <p>{t('search.prompt')}</p>
      )}
      <p class="hint">{t('search.hint')}</p>
    </>,
  );
}
