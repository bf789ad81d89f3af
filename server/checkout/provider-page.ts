import type { CheckoutView } from '../../widget/screen/view';
import { formatMoney } from '../../widget/i18n/format';
import { gatewayName } from '../../widget/screen/gateway-name';
import { escapeHtml } from '../../widget/screen/html';
import { htmlLang, intlLocale } from '../../widget/i18n/language';
import { getTranslator } from '../../widget/i18n/server';
import type { Language } from '../../widget/screen/view';
import type { Gateway, RedirectTo } from '../payments/gateway';

// Two plain pages on the way to a processor: the sandbox's simulated processor page, and
// the form that carries a POST redirect there. The first stands for another company's
// site, so it is deliberately plain and shares nothing with the checkout screen but the
// stylesheet; it speaks the checkout's language, as a real processor would.

const head = (language: Language, title: string, styles: string[]) =>
  `<!doctype html><html lang="${htmlLang(language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(title)}</title>${styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('')}</head>`;

/** A form that posts `to` its fields; `button`: its submit button's text and class. */
const formOf = (to: RedirectTo, button: string, className: string, id = '') =>
  `<form method="post" action="${escapeHtml(to.url)}"${id ? ` id="${id}"` : ''}>${Object.entries(to.fields ?? {})
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('')}<button type="submit" class="button ${className}">${escapeHtml(button)}</button></form>`;

export function renderProviderPage(opts: {
  view: CheckoutView;
  gateway: Pick<Gateway, 'code' | 'name'>;
  choices: { approve: RedirectTo; reject: RedirectTo };
  styles: string[];
}): string {
  const { view, choices } = opts;
  const i18n = getTranslator(view.language);
  const gateway = gatewayName(i18n, opts.gateway);
  const amount = formatMoney(view.totalPrice, view.currency, view.exponent, intlLocale(view.language));
  return `${head(view.language, i18n.t('provider.title', { gateway }), opts.styles)}
<body><main class="provider">
<h1>${escapeHtml(i18n.t('provider.heading', { gateway }))}</h1>
<p>${escapeHtml(i18n.t('provider.body', { merchant: view.merchantName }))}</p>
<p class="provider__amount"><strong>${escapeHtml(amount)}</strong></p>
${formOf(choices.approve, i18n.t('provider.approve'), 'button--primary')}
${formOf(choices.reject, i18n.t('provider.reject'), 'button--quiet')}
</main></body></html>`;
}

/**
 * A POST redirect to a processor: the form submits itself (a nonce'd script), and shows
 * its button to a browser without JavaScript, or if the script is slow.
 */
export function renderRedirectForm(opts: { language: Language; gateway: Pick<Gateway, 'code' | 'name'>; to: RedirectTo; nonce: string; styles: string[] }): string {
  const i18n = getTranslator(opts.language);
  return `${head(opts.language, i18n.t('status.redirecting'), opts.styles)}
<body><main class="provider">
<h1>${escapeHtml(i18n.t('status.redirecting'))}</h1>
${formOf(opts.to, i18n.t('action.continue', { gateway: gatewayName(i18n, opts.gateway) }), 'button--primary', 'redirect')}
<script nonce="${escapeHtml(opts.nonce)}">document.getElementById('redirect').submit()</script>
</main></body></html>`;
}
