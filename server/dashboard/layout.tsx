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
  | 'notifications'
  | 'settings'
  | 'catalogue'
  | 'customers'
  | 'clients'
  | 'subscriptions'
  | 'authorizations'
  | 'wallets'
  | 'events'
  | 'requests'
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

type Link = [Section, string, string];
/** A group of the navigation; one with no label is a link of its own (Overview, Disputes). */
interface Group {
  id: string;
  label: string | null;
  links: Link[];
}

/** The navigation's groups, by the merchant's job; a group with no link left is not shown. */
function navGroups({ text, session, active }: Chrome & { session: ActiveSession }): Group[] {
  const { t } = text;
  const owner = roleAtLeast(session.current.role, 'owner');
  // The platform's own objects appear once the environment has any, or while on their page.
  const used = (section: 'clients' | 'wallets' | 'authorizations') => session.inUse[section] || active === section;
  const when = (shown: boolean, ...links: Link[]) => (shown ? links : []);
  const groups: Group[] = [
    { id: 'home', label: null, links: [['overview', '/dashboard/', t('nav.overview')]] },
    {
      id: 'payments',
      label: t('nav.group.payments'),
      links: [['transactions', '/dashboard/transactions/', t('nav.transactions')], ...when(used('authorizations'), ['authorizations', '/dashboard/authorizations/', t('nav.authorizations')]), ['export', '/dashboard/export/', t('nav.export')]],
    },
    {
      id: 'balance',
      label: t('nav.group.balance'),
      links: [['balance', '/dashboard/balance/', t('nav.balance')], ['payouts', '/dashboard/payouts/', t('nav.payouts')], ...when(owner, ['payoutFiles', '/dashboard/payout-files/', t('nav.payoutFiles')])],
    },
    {
      id: 'customers',
      label: t('nav.group.customers'),
      links: [['customers', '/dashboard/customers/', t('nav.customers')], ...when(used('clients'), ['clients', '/dashboard/clients/', t('nav.clients')]), ...when(used('wallets'), ['wallets', '/dashboard/wallets/', t('nav.wallets')])],
    },
    { id: 'products', label: t('nav.group.products'), links: [['catalogue', '/dashboard/catalogue/', t('nav.catalogue')], ['subscriptions', '/dashboard/subscriptions/', t('nav.subscriptions')]] },
    { id: 'disputes', label: null, links: [['disputes', '/dashboard/disputes/', t('nav.disputes')]] },
    {
      id: 'developers',
      label: t('nav.group.developers'),
      links: [
        ...when(owner, ['keys', '/dashboard/keys/', t('nav.keys')]),
        ['endpoints', '/dashboard/webhook-endpoints/', t('nav.endpoints')],
        ['webhooks', '/dashboard/webhooks/', t('nav.webhooks')],
        ['events', '/dashboard/events/', t('nav.events')],
        ['requests', '/dashboard/requests/', t('nav.requests')],
        ...when(owner, ['processors', '/dashboard/processors/', t('nav.processors')]),
      ],
    },
    {
      id: 'settings',
      label: t('nav.group.settings'),
      links: [['settings', '/dashboard/settings/', t('nav.settings')], ...when(owner, ['team', '/dashboard/team/', t('nav.team')], ['audit', '/dashboard/audit/', t('nav.audit')]), ['security', '/dashboard/account/security/', t('nav.security')], ['notifications', '/dashboard/account/notifications/', t('nav.notifications')]],
    },
  ];
  return groups.filter((g) => g.links.length > 0);
}

function NavLinks({ links, active }: { links: Link[]; active?: Section }) {
  return (
    <>
      {links.map(([section, href, label]) => (
        <li key={section}>
          <a href={href} aria-current={section === active ? 'page' : undefined}>
            {label}
          </a>
        </li>
      ))}
    </>
  );
}

/** Who is signed in, the environment switcher and signing out: the foot of the menu. */
function Account({ text, session }: { text: DashboardText; session: ActiveSession }) {
  const { t } = text;
  return (
    // A region named by who is signed in, so the menu's foot is inside a landmark as the rest of the page is.
    <section class="account" aria-labelledby="who">
      <p id="who" class="who">{t('env.you', { email: session.email, role: t(`env.role.${session.current.role}`) })}</p>
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
    </section>
  );
}

/**
 * The sidebar: the navigation by job and the account. On a phone it is a popover behind
 * one "Menu" button (HTML's own popovertarget: it opens and closes by keyboard, Escape or
 * a tap outside, with no script); from 60rem the stylesheet always shows it beside the page.
 */
function Menu(chrome: Chrome & { session: ActiveSession }) {
  const { text, active, session } = chrome;
  const groups = navGroups(chrome);
  return (
    <div class="menu">
      <button type="button" class="menu-open" popovertarget="menu">
        {text.t('nav.menu')}
      </button>
      <div id="menu" popover="auto" class="menu-panel">
        <button type="button" class="menu-close quiet" popovertarget="menu" popovertargetaction="hide">
          {text.t('nav.close')}
        </button>
        <nav aria-label={text.t('nav.label')}>
          <ul>
            {groups.map((g) =>
              g.label === null ? (
                <NavLinks key={g.id} links={g.links} active={active} />
              ) : (
                <li key={g.id} class="group">
                  <span id={`nav-${g.id}`} class="group-label">
                    {g.label}
                  </span>
                  <ul aria-labelledby={`nav-${g.id}`}>
                    <NavLinks links={g.links} active={active} />
                  </ul>
                </li>
              ),
            )}
          </ul>
        </nav>
        <Account text={text} session={session} />
      </div>
    </div>
  );
}

/**
 * The other half of the environment's test/live pair, when the member belongs to it too: a
 * member of one half alone is shown nothing of the other.
 */
function pairedMembership(session: ActiveSession) {
  const { environment_pair_id: pair, environment_id: id } = session.current;
  return pair ? session.memberships.find((m) => m.environment_pair_id === pair && m.environment_id !== id) : undefined;
}

/** "Test mode", on in the sandbox: a switch to the pair's other half, the switcher's POST (CSRF, audited). */
function TestModeSwitch({ text, session }: { text: DashboardText; session: ActiveSession }) {
  const other = pairedMembership(session);
  if (!other) return null;
  return (
    <form method="post" action="/dashboard/environment/" class="test-mode">
      <Csrf token={session.csrf} />
      <input type="hidden" name="environment" value={other.environment_id} />
      <button type="submit" role="switch" aria-checked={session.current.environment_mode === 'sandbox' ? 'true' : 'false'}>
        {text.t('env.testMode')}
      </button>
    </form>
  );
}

function Header({ text, session, query }: Chrome & { session: ActiveSession }) {
  const { t } = text;
  const { environment_name: name, environment_mode: mode } = session.current;
  return (
    <header class="top">
      <p class="brand">{t('brand')}</p>
      <p class="env" data-testid="environment">
        {name} <span class="mode" data-mode={mode}>{t(`env.mode.${mode}`)}</span>
      </p>
      <TestModeSwitch text={text} session={session} />
      <SearchBox text={text} query={query} />
    </header>
  );
}

export function renderPage(chrome: Chrome, body: ComponentChildren): string {
  const { text, title, session } = chrome;
  const main = (
    <main id="main" tabindex={-1}>
      <h1>{title}</h1>
      {body}
    </main>
  );
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
        {session ? (
          <div class="shell">
            <Menu {...chrome} session={session} />
            {main}
          </div>
        ) : (
          main
        )}
      </body>
    </html>,
  );
  return `<!doctype html>${html}`;
}
