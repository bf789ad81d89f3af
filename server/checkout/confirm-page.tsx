import { type DocumentAssets, renderStaticPage } from '../../widget/screen/document';
import { Chrome, LanguageSwitcher } from '../../widget/screen/components/Chrome';
import { Icon } from '../../widget/screen/components/icons';
import { brandName } from '../../widget/fields/card';
import { formatMoney } from '../../widget/i18n/format';
import type { Language } from '../../widget/i18n/language';
import { getTranslator } from '../../widget/i18n/server';
import type { ConfirmState } from '../payments/confirm-payment';

// The page of a charge that needs its customer (/pay/confirm/{token}/, confirm-routes.ts),
// rendered on the server only: one form with one button, the same with JavaScript on or
// off (it posts; the server sends the customer to their bank). It shows the shop, the
// amount, what it is for and the card; once paid, or past its expiry, it says so.

/** Why the page is shown again after the customer acted (a message above the button). */
export type ConfirmNotice = 'declined' | 'pending' | 'unavailable' | 'session';

export interface ConfirmPageView {
  language: Language;
  state: ConfirmState;
  merchant: string;
  amount: number;
  currency: string;
  exponent: number;
  description: string | null;
  card: { brand: string | null; last4: string | null };
  csrf: string;
  sandbox: boolean;
  notice: ConfirmNotice | null;
}

const NOTICES = { declined: 'confirm.declined', pending: 'confirm.pending', unavailable: 'confirm.unavailable', session: 'error.session' } as const;

export function renderConfirmPage(view: ConfirmPageView, assets: DocumentAssets): string {
  const i18n = getTranslator(view.language);
  const amount = formatMoney(view.amount, view.currency, view.exponent, i18n.locale);
  const brand = brandName(view.card.brand);
  const card = view.card.last4 ? (brand ? i18n.t('receipt.card', { brand, last4: view.card.last4 }) : i18n.t('receipt.cardNoBrand', { last4: view.card.last4 })) : null;
  const title = view.state === 'paid' ? 'confirm.paid.title' : view.state === 'expired' ? 'confirm.expired.title' : 'confirm.heading';
  return renderStaticPage({
    language: view.language,
    title: i18n.t('confirm.title', { merchant: view.merchant }),
    assets,
    embed: false,
    body: (
      <Chrome i18n={i18n} embed={false} testMode={view.sandbox} foot={<LanguageSwitcher i18n={i18n} />}>
        <main class="layout layout--single">
          <section class="pane">
            <div class={`status status--${view.state === 'paid' ? 'success' : 'neutral'}`}>
              <div class="status__badge">
                <Icon name={view.state === 'paid' ? 'check' : view.state === 'expired' ? 'alert' : 'lock'} />
              </div>
              <h1 class="status__title" id="status-title">
                {i18n.t(title)}
              </h1>
              {view.state === 'open' && <p class="status__text">{i18n.t('confirm.body', { merchant: view.merchant })}</p>}
              {view.state === 'paid' && <p class="status__text">{i18n.t('confirm.paid.body', { merchant: view.merchant, amount })}</p>}
              {view.state === 'expired' && <p class="status__text">{i18n.t('confirm.expired.body', { merchant: view.merchant })}</p>}
              <dl class="receipt">
                <div class="receipt__row">
                  <dt>{i18n.t('confirm.shop')}</dt>
                  <dd>{view.merchant}</dd>
                </div>
                <div class="receipt__row">
                  <dt>{i18n.t('confirm.amount')}</dt>
                  <dd>{amount}</dd>
                </div>
                {view.description && (
                  <div class="receipt__row">
                    <dt>{i18n.t('confirm.for')}</dt>
                    <dd>{view.description}</dd>
                  </div>
                )}
                {card && (
                  <div class="receipt__row">
                    <dt>{i18n.t('confirm.card')}</dt>
                    <dd>{card}</dd>
                  </div>
                )}
              </dl>
              {view.notice && (
                <p class="status__text" role="alert" id="confirm-notice">
                  {i18n.t(NOTICES[view.notice])}
                </p>
              )}
              {view.state === 'open' && (
                <form method="post" class="status__actions">
                  <input type="hidden" name="csrf" value={view.csrf} />
                  <p class="status__text">{i18n.t('confirm.note')}</p>
                  <button type="submit" class="button button--primary">
                    {i18n.t('confirm.action')}
                  </button>
                </form>
              )}
            </div>
          </section>
        </main>
      </Chrome>
    ),
  });
}
