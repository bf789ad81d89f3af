import type { PayoutSettings } from '../store/merchant-payouts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { Signed } from './sale-pages';

// The Balance page's "Change bank account and schedule" (owners only, payout-account-routes.ts):
// the fields of PATCH /v1/payout_settings/ (left blank: kept), with the owner's current
// password, and their second factor's code when it is on, in the same form. And the page a
// confirm link from the owners' email opens: one button, a POST.

const SCHEDULES = ['manual', 'daily', 'weekly'] as const;

/** The form's fields, as the refused post sent them. */
export const ACCOUNT_FIELDS = ['iban', 'account_holder_name', 'schedule'] as const;
export type AccountField = (typeof ACCOUNT_FIELDS)[number];

/** A refused change, shown again: what was typed (never the password) and which fields, or the proof, were wrong. */
export interface RefusedAccountForm {
  values: Record<AccountField, string>;
  invalid: (AccountField | 'proof')[];
}

/** Each field's label, which a refusal names too. */
export const ACCOUNT_LABELS = { iban: 'bal.account.iban', account_holder_name: 'bal.account.holder', schedule: 'bal.account.schedule' } as const;

export function PayoutAccountForm(p: { text: DashboardText; csrf: string; email: string; settings: PayoutSettings; secondFactor: boolean; refused?: RefusedAccountForm }) {
  const { text, settings, refused } = p;
  const { t } = text;
  const invalid = (name: AccountField | 'proof') => (refused?.invalid.includes(name) ? ('true' as const) : undefined);
  const schedule = refused?.values.schedule || settings.schedule;
  return (
    <form method="post" action="/dashboard/balance/bank-account/" class="card" data-testid="payout-account-form">
      <Csrf token={p.csrf} />
      <p class="hint">{t('bal.account.intro')}</p>
      <input type="hidden" name="username" autocomplete="username" value={p.email} />
      <label for="payout-iban">{t(ACCOUNT_LABELS.iban)}</label>
      <input id="payout-iban" name="iban" autocomplete="off" spellcheck={false} maxLength={64} value={refused?.values.iban ?? ''} aria-invalid={invalid('iban')} />
      <label for="payout-holder">{t(ACCOUNT_LABELS.account_holder_name)}</label>
      <input
        id="payout-holder"
        name="account_holder_name"
        autocomplete="off"
        maxLength={70}
        value={refused ? refused.values.account_holder_name : (settings.account_holder_name ?? '')}
        aria-invalid={invalid('account_holder_name')}
      />
      <label for="payout-schedule">{t(ACCOUNT_LABELS.schedule)}</label>
      <select id="payout-schedule" name="schedule" aria-invalid={invalid('schedule')}>
        {SCHEDULES.map((s) => (
          <option key={s} value={s} selected={s === schedule}>
            {t(`payout.schedule.${s}`)}
          </option>
        ))}
      </select>
      <label for="payout-password">{t('bal.account.password')}</label>
      <input id="payout-password" name="password" type="password" autocomplete="current-password" required aria-invalid={invalid('proof')} />
      {p.secondFactor && (
        <>
          <label for="payout-code">{t('bal.account.code')}</label>
          <input id="payout-code" name="code" autocomplete="one-time-code" maxLength={64} required aria-invalid={invalid('proof')} />
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
