import type { CheckoutView } from '../../widget/screen/view';
import { formatMoney } from '../../widget/screen/format';
import { htmlLang, intlLocale } from '../../widget/i18n/language';

// The simulated provider page of the sandbox redirect gateway. It stands for another
// company's site, so it is deliberately plain and in English, and it shares nothing with
// the checkout screen but the stylesheet.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export function renderProviderPage(opts: { view: CheckoutView; gatewayName: string; styles: string[] }): string {
  const { view, gatewayName } = opts;
  const amount = formatMoney(view.totalPrice, view.currency, view.exponent, intlLocale(view.language));
  const links = opts.styles.map((href) => `<link rel="stylesheet" href="${esc(href)}">`).join('');
  return `<!doctype html><html lang="${htmlLang(view.language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<title>${esc(gatewayName)}: approve payment</title>${links}</head>
<body><main class="provider">
<h1>${esc(gatewayName)} (sandbox)</h1>
<p>${esc(view.merchantName)} asks you to approve a payment of <strong>${esc(amount)}</strong>.</p>
<form method="post" action="">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<button type="submit" name="decision" value="approve" class="button primary">Approve payment</button>
<button type="submit" name="decision" value="reject" class="button secondary">Reject</button>
</form></main></body></html>`;
}
