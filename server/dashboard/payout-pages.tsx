import { maskedIban } from '../../widget/fields/iban';
import { shownPeriod } from '../domain/merchant-payouts';
import type { PayoutSettings } from '../store/merchant-payouts';
import type { MerchantPayoutRow } from '../store/schema';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { Pager } from './list-parts';
import type { Signed } from './sale-pages';

// Payouts of the environment's balance to its own bank account (GET /v1/merchant_payout/,
// docs/balance.md#payouts): a page of them under the payout settings (read-only here: owners
// change them on the Balance page, re-authenticated, so this page links there), and one payout with its settlement report.
// Not the wallets' payouts to clients' IBANs (wallet-pages.tsx).

/** When the money reached the bank: a paid payout's last change; nothing otherwise. */
const arrivedAt = (p: MerchantPayoutRow) => (p.status === 'paid' ? p.updated_at : null);

function StatusText({ text, row }: { text: DashboardText; row: MerchantPayoutRow }) {
  const words = text.t(`payout.status.${row.status}`);
  return row.status === 'failed' || row.status === 'returned' ? <strong class="overdue">{words}</strong> : <>{words}</>;
}

function Settings({ text, settings }: { text: DashboardText; settings: PayoutSettings }) {
  const { t } = text;
  return (
    <>
      <h2 id="payout-settings">{t('payout.settings')}</h2>
      <dl class="facts" aria-labelledby="payout-settings">
        <dt>{t('payout.iban')}</dt>
        <dd data-testid="payout-iban">{settings.iban ? maskedIban(settings.iban) : t('payout.noIban')}</dd>
        <dt>{t('payout.schedule')}</dt>
        <dd data-testid="payout-schedule">{t(`payout.schedule.${settings.schedule}`)}</dd>
      </dl>
      <p class="hint">
        {t('payout.settingsOnBalance')} <a href="/dashboard/balance/#bal-account">{t('bal.account.title')}</a>
      </p>
    </>
  );
}

export function payoutsPage(p: Signed & { rows: MerchantPayoutRow[]; settings: PayoutSettings; page: number; pages: number }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('payout.title'), active: 'payouts' },
    <>
      <p>{t('payout.intro')}</p>
      <Settings text={text} settings={p.settings} />
      <h2 id="payout-list">{t('payout.list')}</h2>
      {p.rows.length === 0 ? (
        <p class="empty">{t('payout.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-labelledby="payout-list">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('payout.created')}</th>
                <th scope="col">{t('payout.amount')}</th>
                <th scope="col">{t('tx.status')}</th>
                <th scope="col">{t('payout.arrived')}</th>
                <th scope="col">{t('payout.failure')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r) => (
                <tr key={r.id} data-payout={r.id}>
                  <td>
                    <a href={`/dashboard/payouts/${r.id}/`}>{text.dateTime(r.created_at)}</a>
                  </td>
                  <td>{text.money(r.amount, r.currency)}</td>
                  <td>
                    <StatusText text={text} row={r} />
                  </td>
                  <td>{arrivedAt(r) ? text.dateTime(arrivedAt(r)!) : '—'}</td>
                  <td>{r.failure ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `/dashboard/payouts/?page=${n}`} />
    </>,
  );
}

export function payoutPage(p: Signed & { row: MerchantPayoutRow }): string {
  const { text, row } = p;
  const { t } = text;
  const period = shownPeriod(row.period);
  return renderPage(
    { text, session: p.session, title: t('payout.one', { amount: text.money(row.amount, row.currency) }), active: 'payouts' },
    <>
      <p>
        <a href="/dashboard/payouts/">{t('payout.back')}</a>
      </p>
      <dl class="facts">
        <dt>{t('payout.amount')}</dt>
        <dd>{text.money(row.amount, row.currency)}</dd>
        <dt>{t('tx.status')}</dt>
        <dd data-testid="payout-status">
          <StatusText text={text} row={row} />
        </dd>
        <dt>{t('payout.schedule')}</dt>
        <dd>{period ? t('payout.period', { schedule: t(`payout.schedule.${row.schedule}`), period }) : t(`payout.schedule.${row.schedule}`)}</dd>
        <dt>{t('payout.iban')}</dt>
        <dd>{maskedIban(row.iban)}</dd>
        <dt>{t('payout.created')}</dt>
        <dd>{text.dateTime(row.created_at)}</dd>
        <dt>{t('payout.arrived')}</dt>
        <dd>{arrivedAt(row) ? text.dateTime(arrivedAt(row)!) : '—'}</dd>
        <dt>{t('payout.lines')}</dt>
        <dd>{row.line_count}</dd>
        {row.failure && (
          <>
            <dt>{t('payout.failure')}</dt>
            <dd>{row.failure}</dd>
          </>
        )}
      </dl>
      <h2>{t('payout.report')}</h2>
      <p>{t(row.status === 'failed' ? 'payout.reportFailed' : 'payout.reportIntro')}</p>
      <p>
        <a href={`/dashboard/payouts/${row.id}/settlement.csv`} download data-testid="settlement-csv">
          {t('payout.download')}
        </a>
      </p>
    </>,
  );
}
