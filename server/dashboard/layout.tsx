import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { roleAtLeast } from '../store/users';
import { MAX_SEARCH_LENGTH } from '../domain/transaction-search';

// The frame of every dashboard page: plain HTML forms, no script at all, so the strict CSP
// has nothing to allow and every action works by keyboard and without JavaScript.

export const STYLESHEET = '/dashboard/assets/dashboard.css';

export type Section =
  | 'overview'
  | 'transactions'
  | 'balance'
  | 'disputes'
  | 'webhooks'
  | 'export'
  | 'keys'
  | 'processors'
  | 'team'
  | 'audit'
  | 'security'
  | 'settings'
  | 'catalogue'
  | 'clients'
  | 'subscriptions'
  | 'authorizations'
  | 'wallets'
  | 'events'
  | 'endpoints'
  | 'payouts'
  | 'payoutFiles';

export interface Chrome {
  text: DashboardText;
  title: string;
  /** Signed in: the navigation, the switcher and the sign-out buttons. */
  session?: ActiveSession;
  active?: Section;
  /** The text in the header's search box (the search page's own). */
  query?: string;
}

/** The CSRF field every form of a signed-in page carries. */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="csrf" value={token} />;

/** The one search box across objects (search-routes.ts): a GET form, so it works without script. */
function SearchBox({ text, query }: { text: DashboardText; query?: string }) {
  return (
    <form method="get" action="/dashboard/search/" role="search" class="find">
      <label for="site-search" class="visually-hidden">
        {text.t('search.label')}
      </label>
      <input id="site-search" type="search" name="q" value={query ?? ''} maxLength={MAX_SEARCH_LENGTH} autocomplete="off" />
      <button type="submit">{text.t('search.submit')}</button>
    </form>
  );
}

function Header({ text, session, active, query }: Chrome & { session: ActiveSession }) {
  const { t } = text;
  const links: [Section, string, string][] = [
    ['overview', '/dashboard/', t('nav.overview')],
    ['transactions', '/dashboard/transactions/', t('nav.transactions')],
    ['balance', '/dashboard/balance/', t('nav.balance')],
    ['disputes', '/dashboard/disputes/', t('nav.disputes')],
    ['webhooks', '/dashboard/webhooks/', t('nav.webhooks')],
    ['export', '/dashboard/export/', t('nav.export')],
    ['catalogue', '/dashboard/catalogue/', t('nav.catalogue')],
    ['clients', '/dashboard/clients/', t('nav.clients')],
    ['subscriptions', '/dashboard/subscriptions/', t('nav.subscriptions')],
    ['authorizations', '/dashboard/authorizations/', t('nav.authorizations')],
    ['wallets', '/dashboard/wallets/', t('nav.wallets')],
    ['events', '/dashboard/events/', t('nav.events')],
    ['endpoints', '/dashboard/webhook-endpoints/', t('nav.endpoints')],
    ['payouts', '/dashboard/payouts/', t('nav.payouts')],
  ];
  if (roleAtLeast(session.current.role, 'owner')) {
    links.push(['keys', '/dashboard/keys/', t('nav.keys')], ['processors', '/dashboard/processors/', t('nav.processors')], ['payoutFiles', '/dashboard/payout-files/', t('nav.payoutFiles')], ['team', '/dashboard/team/', t('nav.team')], ['audit', '/dashboard/audit/', t('nav.audit')]);
  }
  links.push(['settings', '/dashboard/settings/', t('nav.settings')], ['security', '/dashboard/account/security/', t('nav.security')]);
  return (
    <header class="top">
      <p class="brand">{t('brand')}</p>
      <SearchBox text={text} query={query} />
      <nav aria-label={t('nav.label')}>
        <ul>
          {links.map(([section, href, label]) => (
            <li key={section}>
              <a href={href} aria-current={section === active ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {session.memberships.length > 1 && (
        <form method="post" action="/dashboard/environment/" class="switcher">
          <Csrf token={session.csrf} />
          <label for="environment">{t('env.label')}</label>
          <select id="environment" name="environment">
            {session.memberships.map((m) => (
              <option key={m.environment_id} value={m.environment_id} selected={m.environment_id === session.current.environment_id}>
                {`${m.environment_name} (${t(`env.mode.${m.environment_mode}`)})`}
              </option>
            ))}
          </select>
          <button type="submit">{t('env.switch')}</button>
        </form>
      )}
      <p class="who">{t('env.you', { email: session.email, role: t(`env.role.${session.current.role}`) })}</p>
      <div class="signout">
        <form method="post" action="/dashboard/sign-out/">
          <Csrf token={session.csrf} />
          <button type="submit">{t('signOut')}</button>
        </form>
        <form method="post" action="/dashboard/sign-out-everywhere/">
          <Csrf token={session.csrf} />
          <button type="submit" class="quiet">{t('signOutEverywhere')}</button>
        </form>
      </div>
    </header>
  );
}

export function renderPage(chrome: Chrome, body: ComponentChildren): string {
  const { text, title, session } = chrome;
  const html = renderToString(
    <html lang={text.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${title} · ${text.t('brand')}`}</title>
        <link rel="stylesheet" href={STYLESHEET} />
      </head>
      <body>
        <a class="skip" href="#main">
          {text.t('skip')}
        </a>
        {session ? <Header {...chrome} session={session} /> : <header class="top"><p class="brand">{text.t('brand')}</p></header>}
        {session?.current.environment_mode === 'sandbox' && (
          // A landmark of its own, so every part of the page is inside one.
          <aside class="sandbox" aria-labelledby="sandbox-note">
            <p id="sandbox-note">{text.t('env.sandbox')}</p>
          </aside>
        )}
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {body}
        </main>
      </body>
    </html>,
  );
  return `<!doctype html>${html}`;
}
