import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../domain/subscription-states';
import type { SubscriptionRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import { type DashboardText, pricePerPeriod } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';
import { type StatusListInput, statusListPage } from './status-list';

// Subscriptions: a page of them with a status filter, and an admin's pause, resume and
// stop (stop asks once more: it cannot be undone).

export type SubAction = 'pause' | 'resume' | 'stop';

/** Which buttons a subscription in this state shows (the store refuses the others anyway). */
const ACTIONS_FROM: Record<SubAction, readonly SubscriptionStatus[]> = {
  pause: ['active'],
  resume: ['paused'],
  stop: ['waiting', 'trialing', 'active', 'paused', 'past_due'],
};

export const nameOf = (r: SubscriptionRow) => `${r.plan_name} · ${r.subscription_id ?? r.id}`;

export function SubscriptionActions({ text, csrf, row }: { text: DashboardText; csrf: string; row: SubscriptionRow }) {
  const { t } = text;
  const shown = (['pause', 'resume', 'stop'] as const).filter((a) => ACTIONS_FROM[a].includes(row.status as SubscriptionStatus));
  if (shown.length === 0) return <>—</>;
  return (
    <div class="row-actions">
      {shown.map((a) => (
        <form key={a} method="post" action={`/dashboard/subscriptions/${row.id}/${a}/`}>
          <Csrf token={csrf} />
          <button type="submit" aria-label={t(`sub.${a}Named`, { name: nameOf(row) })}>
            {t(`sub.${a}`)}
          </button>
        </form>
      ))}
    </div>
  );
}

/** A status in words; past due (a charge failed, retries running) stands out. */
export function StatusText({ text, status }: { text: DashboardText; status: SubscriptionStatus }) {
  const words = text.t(`sub.status.${status}`);
  return status === 'past_due' ? <strong class="overdue">{words}</strong> : <>{words}</>;
}

export function subscriptionsPage(p: StatusListInput<SubscriptionRow>): string {
  const { text } = p;
  const { t } = text;
  const canAct = roleAtLeast(p.session.current.role, 'admin');
  return statusListPage(p, {
    section: 'subscriptions',
    title: t('sub.title'),
    filterLabel: t('sub.filter'),
    none: t('sub.none'),
    statuses: SUBSCRIPTION_STATUSES,
    statusName: (s) => t(`sub.status.${s}`),
    headings: [t('sub.plan'), t('tx.status'), t('sub.amount'), t('sub.next'), ...(canAct ? [t('sub.actions')] : [])],
    row: (r) => (
      <tr key={r.id} data-subscription={r.id}>
        <td>
          <a href={`/dashboard/subscriptions/${r.id}/`}>{nameOf(r)}</a>
        </td>
        <td>
          <StatusText text={text} status={r.status as SubscriptionStatus} />
        </td>
        <td>{pricePerPeriod(text, text.money(r.amount, r.currency), r.interval, r.interval_count)}</td>
        <td>{r.next_charge_at ? text.dateTime(r.next_charge_at) : '—'}</td>
        {canAct && (
          <td>
            <SubscriptionActions text={text} csrf={p.session.csrf} row={r} />
          </td>
        )}
      </tr>
    ),
  });
}

export function confirmStopPage(p: Signed & { row: SubscriptionRow }): string {
  const { text, row } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('sub.stopTitle'), active: 'subscriptions' },
    <form method="post" action={`/dashboard/subscriptions/${row.id}/stop/`} class="card">
      <p>{t('sub.stopBody', { name: nameOf(row) })}</p>
      <Csrf token={p.session.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="primary">
        {t('sub.stopConfirm')}
      </button>
      <a href="/dashboard/subscriptions/">{t('sub.keep')}</a>
    </form>,
  );
}
