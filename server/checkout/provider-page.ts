import type { CheckoutView } from '../../widget/screen/view';
import { formatMoney } from '../../widget/i18n/format';
import { gatewayName } from '../../widget/screen/gateway-name';
import { escapeHtml } from '../../widget/screen/html';
import { htmlLang, intlLocale } from '../../widget/i18n/language';
import { getTranslator } from '../../widget/i18n/server';
import type { Gateway } from '../payments/gateway';

// The simulated provider page of the sandbox redirect gateway. It stands for another
// company's site, so it is deliberately plain and shares nothing with the checkout screen
// but the stylesheet; it speaks the checkout's language, as a real provider would.


export function renderProviderPage(opts: { view: CheckoutView; gateway: Pick<Gateway, 'code' | 'name'>; styles: string[] }): string {
  const { view } = opts;
  const i18n = getTranslator(view.language);
  const gateway = gatewayName(i18n, opts.gateway);
  const amount = formatMoney(view.totalPrice, view.currency, view.exponent, intlLocale(view.language));
  const links = opts.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
  return `<!doctype html><html lang="${htmlLang(view.language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(i18n.t('provider.title', { gateway }))}</title>${links}</head>
<body><main class="provider">
<h1>${escapeHtml(i18n.t('provider.heading', { gateway }))}</h1>
<p>${escapeHtml(i18n.t('provider.body', { merchant: view.merchantName }))}</p>
<p class="provider__amount"><strong>${escapeHtml(amount)}</strong></p>
<form method="post" action="">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" name="decision" value="approve" class="button button--primary">${escapeHtml(i18n.t('provider.approve'))}</button>
<button type="submit" name="decision" value="reject" class="button button--quiet">${escapeHtml(i18n.t('provider.reject'))}</button>
</form></main></body></html>`;
}
