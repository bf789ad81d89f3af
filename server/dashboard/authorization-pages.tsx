import type { AuthorizationRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';
import { type StatusListInput, statusListPage } from './status-list';

// Stored cards (authorizations): a page of them with a status filter, and an admin's
// removal of an active one (asked once more: it cannot be undone).

export const AUTHORIZATION_STATUSES = ['pending', 'requires_action', 'active', 'removed', 'failed', 'expired'] as const satisfies readonly AuthorizationRow['status'][];

export const cardOf = (text: DashboardText, r: AuthorizationRow) =>
  r.card_last4 ? text.t('auth.card', { brand: r.card_brand ?? '', last4: r.card_last4, month: String(r.card_exp_month ?? '').padStart(2, '0'), year: r.card_exp_year ?? '' }) : '—';

function Row({ text, csrf, row, canAct }: { text: DashboardText; csrf: string; row: AuthorizationRow; canAct: boolean }) {
  const { t } = text;
  return (
    <tr data-authorization={row.id}>
      <td>{cardOf(text, row)}</td>
      <td>{t(`auth.status.${row.status}`)}</td>
      <td>{text.dateTime(row.created_at)}</td>
      <td>{row.transaction_id ? <a href={`/dashboard/transactions/${row.transaction_id}/`}>{t('auth.transaction')}</a> : '—'}</td>
      {canAct && (
        <td>
          {row.status === 'active' ? (
            <form method="post" action={`/dashboard/authorizations/${row.id}/remove/`}>
              <Csrf token={csrf} />
              <button type="submit" aria-label={t('auth.removeNamed', { card: cardOf(text, row) })}>
                {t('auth.remove')}
              </button>
            </form>
          ) : (
            '—'
          )}
        </td>
      )}
    </tr>
  );
}

export function authorizationsPage(p: StatusListInput<AuthorizationRow>): string {
  const { text } = p;
  const { t } = text;
  const canAct = roleAtLeast(p.session.current.role, 'admin');
  return statusListPage(p, {
    section: 'authorizations',
    title: t('auth.title'),
    filterLabel: t('auth.filter'),
    none: t('auth.none'),
    statuses: AUTHORIZATION_STATUSES,
    statusName: (s) => t(`auth.status.${s}`),
    headings: [t('auth.cardHeading'), t('tx.status'), t('auth.created'), t('auth.transaction'), ...(canAct ? [t('sub.actions')] : [])],
    row: (r) => <Row key={r.id} text={text} csrf={p.session.csrf} row={r} canAct={canAct} />,
  });
}

export function confirmRemovePage(p: Signed & { row: AuthorizationRow }): string {
  const { text, row } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('auth.removeTitle'), active: 'authorizations' },
    <form method="post" action={`/dashboard/authorizations/${row.id}/remove/`} class="card">
      <p>{t('auth.removeBody', { card: cardOf(text, row) })}</p>
      <p>
        <strong>{t('sale.confirm.environment', { name: p.session.current.environment_name, mode: t(`env.mode.${p.session.current.environment_mode}`) })}</strong>
      </p>
      <Csrf token={p.session.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="primary">
        {t('auth.removeConfirm')}
      </button>
      <a href="/dashboard/authorizations/">{t('auth.keep')}</a>
    </form>,
  );
}
