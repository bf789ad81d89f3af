import type { ComponentChildren } from 'preact';
import type { Value } from '../domain/customers';
import type { SubscriptionStatus } from '../domain/subscription-states';
import type { Client } from '../store/clients';
import type { ListedCustomer } from '../store/customers';
import type { ShownWallet } from '../store/ledger';
import type { PaymentFactsOf } from '../store/payment-list';
import type { AuthorizationRow, SubscriptionRow } from '../store/schema';
import type { Transaction } from '../store/transactions';
import { cardOf } from './authorization-pages';
import { clientUrl } from './client-pages';
import { type DashboardText, pricePerPeriod } from './i18n';
import { renderPage } from './layout';
import { Pager } from './list-parts';
import type { Signed } from './sale-pages';
import { nameOf, StatusText } from './subscription-pages';
import { PaymentResults } from './transactions-page';

// Customers: API clients and payers known only by the email on their payments, in one list
// with their payments, lifetime value and last payment; one customer with their payments,
// saved cards, subscriptions and, for a client, wallets.

export const MAX_CUSTOMER_SEARCH = 200;
export const customerUrl = (c: Pick<ListedCustomer, 'kind' | 'id'>) => `/dashboard/customers/${c.kind === 'client' ? 'clients' : 'payers'}/${c.id}/`;

/** Each currency's lifetime value, as this language writes money; nothing paid: a dash. */
const valueText = (text: DashboardText, value: Value[]) => (value.length ? value.map((v) => text.money(v.units, v.currency)).join(', ') : '—');

export interface CustomerListQuery {
  q: string;
  /** Demo and test-tool payments shown too. */
  all: boolean;
  page: number;
}

const listHref = (q: CustomerListQuery, page: number) =>
  `/dashboard/customers/?${new URLSearchParams({ ...(q.q ? { q: q.q } : {}), ...(q.all ? { all: '1' } : {}), page: String(page) })}`;

function Search({ text, query }: { text: DashboardText; query: CustomerListQuery }) {
  const { t } = text;
  return (
    <form method="get" action="/dashboard/customers/" class="filters" aria-label={t('cu.search')}>
      <div class="search">
        <label for="cu-q">{t('cu.search')}</label>
        <input id="cu-q" name="q" type="search" value={query.q} maxLength={MAX_CUSTOMER_SEARCH} autocomplete="off" />
      </div>
      <div class="check">
        <input id="cu-all" name="all" type="checkbox" value="1" checked={query.all} />
        <label for="cu-all">{t('pay.showTools')}</label>
      </div>
      <button type="submit">{t('tx.apply')}</button>
    </form>
  );
}

function CustomerRow({ text, c }: { text: DashboardText; c: ListedCustomer }) {
  return (
    <tr data-customer={c.id}>
      <td>
        <a href={customerUrl(c)}>{c.name ?? c.email}</a>
      </td>
      <td class="url">{c.email ?? '—'}</td>
      <td>{c.payments}</td>
      <td>{valueText(text, c.value)}</td>
      <td>{c.last_payment_at ? text.dateTime(c.last_payment_at) : '—'}</td>
    </tr>
  );
}

export function customersPage(p: Signed & { query: CustomerListQuery; rows: ListedCustomer[]; pages: number }): string {
  const { text, query } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('cu.title'), active: 'customers' },
    <>
      <Search text={text} query={query} />
      {p.rows.length === 0 ? (
        <p class="empty">{query.q ? t('cu.noMatch') : t('cu.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('cu.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('cl.name')}</th>
                <th scope="col">{t('cl.email')}</th>
                <th scope="col">{t('cu.payments')}</th>
                <th scope="col">{t('cu.value')}</th>
                <th scope="col">{t('cu.lastPayment')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((c) => (
                <CustomerRow key={c.id} text={text} c={c} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={query.page} pages={p.pages} href={(n) => listHref(query, n)} />
    </>,
  );
}

/** A table under its heading, or the sentence that says there is none. */
function Section({ title, none, headings, children, count }: { title: string; none: string; headings: string[]; children: ComponentChildren; count: number }) {
  return (
    <>
      <h2>{title}</h2>
      {count === 0 ? (
        <p class="empty">{none}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={title}>
          <table>
            <thead>
              <tr>
                {headings.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{children}</tbody>
          </table>
        </div>
      )}
    </>
  );
}

function Cards({ text, cards }: { text: DashboardText; cards: AuthorizationRow[] }) {
  const { t } = text;
  return (
    <Section title={t('cu.cards')} none={t('cu.noCards')} headings={[t('auth.cardHeading'), t('tx.status'), t('auth.created')]} count={cards.length}>
      {cards.map((c) => (
        <tr key={c.id} data-authorization={c.id}>
          <td>{cardOf(text, c)}</td>
          <td>{t(`auth.status.${c.status}`)}</td>
          <td>{text.dateTime(c.created_at)}</td>
        </tr>
      ))}
    </Section>
  );
}

function Subscriptions({ text, subscriptions }: { text: DashboardText; subscriptions: SubscriptionRow[] }) {
  const { t } = text;
  return (
    <Section title={t('sub.title')} none={t('cu.noSubscriptions')} headings={[t('sub.plan'), t('tx.status'), t('sub.amount'), t('sub.next')]} count={subscriptions.length}>
      {subscriptions.map((r) => (
        <tr key={r.id} data-subscription={r.id}>
          <td>
            <a href={`/dashboard/subscriptions/${r.id}/`}>{nameOf(r)}</a>
          </td>
          <td>
            <StatusText text={text} status={r.status as SubscriptionStatus} />
          </td>
          <td>{pricePerPeriod(text, text.money(r.amount, r.currency), r.interval, r.interval_count)}</td>
          <td>{r.next_charge_at ? text.dateTime(r.next_charge_at) : '—'}</td>
        </tr>
      ))}
    </Section>
  );
}

function Wallets({ text, wallets }: { text: DashboardText; wallets: ShownWallet[] }) {
  const { t } = text;
  return (
    <Section title={t('wallet.title')} none={t('cu.noWallets')} headings={[t('wallet.name'), t('wallet.balance'), t('tx.status')]} count={wallets.length}>
      {wallets.map((w) => (
        <tr key={w.id} data-wallet={w.id}>
          <td>
            <a href={`/dashboard/wallets/${w.id}/`}>{`${w.name} · ${w.wallet_id}`}</a>
          </td>
          <td>{text.money(w.balance, w.currency)}</td>
          <td>{t(w.enabled && w.enabled_by_compliance ? 'wallet.usable' : 'wallet.blocked')}</td>
        </tr>
      ))}
    </Section>
  );
}

export interface CustomerView {
  /** The client, or null for a payer known by `email`. */
  client: Client | null;
  email: string | null;
  value: Value[];
  payments: { row: Transaction }[];
  facts: PaymentFactsOf;
  page: number;
  pages: number;
  cards: AuthorizationRow[];
  subscriptions: SubscriptionRow[];
  wallets: ShownWallet[];
  now: Date;
  /** This page's own address, for its pager. */
  href: string;
}

function Contact({ text, v }: { text: DashboardText; v: CustomerView }) {
  const { t } = text;
  const c = v.client;
  return (
    <dl class="facts">
      <dt>{t('cl.email')}</dt>
      <dd>{v.email ?? '—'}</dd>
      {c && (
        <>
          <dt>{t('cu.phone')}</dt>
          <dd>{c.phone ?? '—'}</dd>
          <dt>{t('cl.clientId')}</dt>
          <dd>{c.client_id ?? '—'}</dd>
          <dt>{t('cl.compliance')}</dt>
          <dd>
            <a href={clientUrl(c.id)}>{c.enabled_by_compliance ? t('cl.compliant') : t('cl.notCompliant')}</a>
          </dd>
        </>
      )}
      <dt>{t('cu.value')}</dt>
      <dd id="lifetime-value">{valueText(text, v.value)}</dd>
    </dl>
  );
}

export function customerPage(p: Signed & CustomerView): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: p.client?.name ?? p.email ?? t('cu.title'), active: 'customers' },
    <>
      <p>
        <a href="/dashboard/customers/">{t('cu.title')}</a>
      </p>
      <Contact text={text} v={p} />
      <h2>{t('cu.payments')}</h2>
      {p.payments.length === 0 ? <p class="empty">{t('cu.noPayments')}</p> : <PaymentResults text={text} items={p.payments} facts={p.facts} now={p.now} />}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `${p.href}?page=${n}`} />
      <Cards text={text} cards={p.cards} />
      <Subscriptions text={text} subscriptions={p.subscriptions} />
      {p.client && <Wallets text={text} wallets={p.wallets} />}
    </>,
  );
}
