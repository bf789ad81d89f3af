import type { PayoutSettings } from '../store/merchant-payouts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';

// The Balance page's "Change bank account and schedule" (owners only, payout-account-routes.ts):
// the fields of PATCH /v1/payout_settings/ (left blank: kept), with the owner's current
// password, and their second factor's code when it is on, in the same form. And the page a
// confirm link from the owners' email opens: one button, a POST.

const SCHEDULES = ['manual', 'daily', 'weekly'] as const;

export function PayoutAccountForm({ text, csrf, email, settings, secondFactor }: { text: DashboardText; csrf: string; email: string; settings: PayoutSettings; secondFactor: boolean }) {
  const { t } = text;
  return (
    <form method="post" action="/dashboard/balance/bank-account/" class="card" data-testid="payout-account-form">
      <Csrf token={csrf} />
      <p class="hint">{t('bal.account.intro')}</p>
      <input type="hidden" name="username" autocomplete="username" value={email} />
      <label for="payout-iban">{t('bal.account.iban')}</label>
      <input id="payout-iban" name="iban" autocomplete="off" spellcheck={false} maxLength={64} />
      <label for="payout-holder">{t('bal.account.holder')}</label>
      <input id="payout-holder" name="account_holder_name" autocomplete="off" maxLength={70} value={settings.account_holder_name ?? ''} />
      <label for="payout-schedule">{t('bal.account.schedule')}</label>
      <select id="payout-schedule" name="schedule">
        {SCHEDULES.map((s) => (
          <option key={s} value={s} selected={s === settings.schedule}>
            {t(`payout.schedule.${s}`)}
          </option>
        ))}
      </select>
      <label for="payout-password">{t('bal.account.password')}</label>
      <input id="payout-password" name="password" type="password" autocomplete="current-password" required />
      {secondFactor && (
        <>
          <label for="payout-code">{t('bal.account.code')}</label>
          <input id="payout-code" name="code" autocomplete="one-time-code" maxLength={64} required />
        </>
      )}
      <button type="submit">{t('bal.account.submit')}</button>
    </form>
  );
}

/** What a confirm link opens: the held account and one button. */
export function payoutAccountConfirmPage(p: Signed & { token: string; last4: string; until: string }): string {
  const { text, session } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('bal.confirm.title'), active: 'balance' },
    <>
      <p data-testid="payout-account-confirm">{t('bal.confirm.body', { last4: p.last4, until: text.dateTime(p.until) })}</p>
      <div class="row-actions">
        <form method="post" action={`/dashboard/balance/bank-account/confirm/${p.token}/`}>
          <Csrf token={session.csrf} />
          <button type="submit" class="primary">
            {t('bal.confirm.submit')}
          </button>
        </form>
        <a href="/dashboard/balance/">{t('bal.back')}</a>
      </div>
    </>,
  );
}
