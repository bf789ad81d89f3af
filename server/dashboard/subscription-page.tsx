import type { SubscriptionStatus } from '../domain/subscription-states';
import type { Client } from '../store/clients';
import type { AuthorizationRow, SubscriptionChargeRow, SubscriptionRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import { cardOf } from './authorization-pages';
import { type DashboardText, pricePerPeriod } from './i18n';
import { renderPage } from './layout';
import type { Signed } from './sale-pages';
import { nameOf, StatusText, SubscriptionActions } from './subscription-pages';

// One subscription: its plan, status, client, card and next charge, then its charges as
// GET /v1/subscription/{id}/ lists them (oldest first), so a failed charge, its reason,
// its attempts and the next retry are in plain view; an admin's pause, resume and stop.

export interface SubscriptionView {
  row: SubscriptionRow;
  charges: SubscriptionChargeRow[];
  client: Client | undefined;
  card: AuthorizationRow | undefined;
}

function Facts({ text, v }: { text: DashboardText; v: SubscriptionView }) {
  const { t } = text;
  const { row } = v;
  return (
    <dl class="facts">
      <dt>{t('sub.plan')}</dt>
      <dd>{`${row.plan_name}: ${pricePerPeriod(text, text.money(row.amount, row.currency), row.interval, row.interval_count)}`}</dd>
      <dt>{t('tx.status')}</dt>
      <dd data-testid="sub-status">
        <StatusText text={text} status={row.status as SubscriptionStatus} />
      </dd>
      <dt>{t('sub.client')}</dt>
      <dd>{v.client ? <a href={`/dashboard/clients/${v.client.id}/`}>{v.client.name}</a> : '—'}</dd>
      <dt>{t('auth.cardHeading')}</dt>
      <dd>{v.card ? cardOf(text, v.card) : '—'}</dd>
      <dt>{t('sub.next')}</dt>
      <dd>{row.next_charge_at ? text.dateTime(row.next_charge_at) : '—'}</dd>
      <dt>{t('sub.failedAttempts')}</dt>
      <dd>{row.failures}</dd>
      {row.stop_reason && (
        <>
          <dt>{t('sub.stopReason')}</dt>
          <dd>{t(`sub.stopReason.${row.stop_reason}`)}</dd>
        </>
      )}
    </dl>
  );
}

const FAILURES = ['declined', 'insufficient_funds', 'authorization_removed', 'not_processed', 'gateway_failed'] as const;
/** A known failure in words; a code this page does not know yet, as it is. */
const failureText = (text: DashboardText, code: string) => ((FAILURES as readonly string[]).includes(code) ? text.t(`sub.failure.${code as (typeof FAILURES)[number]}`) : code);

/** Only the latest failed charge waits for a retry: the subscription's next charge is it. */
const retryOf = (v: SubscriptionView, c: SubscriptionChargeRow) =>
  c.status === 'failed' && v.row.status === 'past_due' && c.period === Math.max(...v.charges.map((x) => x.period)) ? v.row.next_charge_at : null;

function Charges({ text, v }: { text: DashboardText; v: SubscriptionView }) {
  const { t } = text;
  if (v.charges.length === 0) return <p class="empty">{t('sub.noCharges')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby="sub-charges">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('sub.period')}</th>
            <th scope="col">{t('sub.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
            <th scope="col">{t('sub.failure')}</th>
            <th scope="col">{t('sub.attempts')}</th>
            <th scope="col">{t('sub.retry')}</th>
          </tr>
        </thead>
        <tbody>
          {v.charges.map((c) => {
            const retry = retryOf(v, c);
            return (
              <tr key={c.id} data-charge={c.period} data-status={c.status}>
                <td>{t('sub.periodRange', { period: c.period, from: text.dateTime(c.period_start), to: text.dateTime(c.period_end) })}</td>
                <td>{text.money(c.amount, c.currency)}</td>
                <td>{c.status === 'failed' ? <strong class="overdue">{t('sub.charge.failed')}</strong> : t(`sub.charge.${c.status}`)}</td>
                <td>{c.failure ? failureText(text, c.failure) : '—'}</td>
                <td>{c.attempts}</td>
                <td>{retry ? text.dateTime(retry) : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function subscriptionPage(p: Signed & { view: SubscriptionView }): string {
  const { text, view } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: nameOf(view.row), active: 'subscriptions' },
    <>
      <p>
        <a href="/dashboard/subscriptions/">{t('sub.back')}</a>
      </p>
      <Facts text={text} v={view} />
      {roleAtLeast(p.session.current.role, 'admin') && <SubscriptionActions text={text} csrf={p.session.csrf} row={view.row} />}
      <h2 id="sub-charges">{t('sub.charges')}</h2>
      <Charges text={text} v={view} />
    </>,
  );
}
