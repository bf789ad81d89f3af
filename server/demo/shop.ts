import { formatMoney } from '../../widget/i18n/format';
import { escapeHtml } from '../../widget/screen/html';
import { newNonce } from '../checkout/security';
import type { Deps } from '../deps';
import type { Gateway } from '../payments/gateway';
import { findCurrency } from '../domain/currencies';
import { type TestCardBehaviour, testCardFor } from '../domain/test-cards';
import { findDemoEnvironment, findReturnSecrets } from '../store/environments';
import { type VerifiedReturn, verifyReturn } from '../notify/return-signature';
import { findCheckout } from '../store/transactions';
import type { EnvironmentRow } from '../store/schema';
import { createTransaction } from '../transactions/create';

// /demo/: a stand-in merchant shop, so a new user sees the widget take a payment right
// after `npm start`. Only while the demo environment exists; otherwise 404 like any
// unknown path. Each visit creates its transactions in process, with the same domain code
// as POST /v1/transaction/, and embeds them like a merchant would: the script tag, a
// declarative element and Checkout.open.

const HOUR_MS = 60 * 60 * 1000;
const QUEUE_SNIPPET =
  '!function(w,c){c=w.Checkout=w.Checkout||{q:[]};["mount","open"].forEach(function(m){c[m]=c[m]||function(){c.q.push([m,arguments])}})}(window);';


interface Product {
  name: string;
  price: number;
  amount: number;
}
const INLINE_ORDER: Product = { name: 'Coffee beans 250 g', price: 8.5, amount: 2 };
const OVERLAY_ORDER: Product = { name: 'Ceramic mug', price: 12, amount: 1 };

async function demoTransaction(deps: Deps, env: EnvironmentRow, baseUrl: string, product: Product) {
  const now = deps.now();
  const body = {
    currency: 'EUR',
    order_id: `demo-${now.getTime().toString(36)}`,
    gateway_selected: true,
    authorize: false,
    // An unpaid demo transaction is only litter: it expires within the hour.
    expired_date: new Date(now.getTime() + HOUR_MS).toISOString(),
    return_url: `${baseUrl}/demo/?paid=1`,
    cancel_url: `${baseUrl}/demo/?cancelled=1`,
    products: [{ amount: product.amount, product: { name: product.name, price: product.price } }],
  };
  const tx = await createTransaction(deps.database.db, env.id, body, now);
  const exponent = findCurrency(tx.row.currency)?.exponent ?? 2;
  return { token: tx.row.token, total: formatMoney(tx.row.total_price, tx.row.currency, exponent, 'en-IE') };
}

const STYLES = `
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1d1d1f;background:#f5f3ef}
header{background:#2d2a26;color:#fff;padding:.75rem 1.5rem;font-weight:600}
main{max-width:60rem;margin:0 auto;padding:1.5rem}
h1{margin:.5rem 0 1rem;font-size:1.75rem}
h2{font-size:1.25rem;margin:0 0 .5rem}
.grid{display:grid;gap:1.5rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,24rem),1fr));align-items:start}
.stack{display:grid;gap:1.5rem}
section,aside,.result{background:#fff;border-radius:8px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.result{border-left:6px solid #1a7f37;margin-bottom:1.5rem}
.result--cancelled{border-left-color:#6e6e73}
button{font:inherit;font-weight:600;padding:.75rem 1.25rem;border:0;border-radius:6px;background:#0b57d0;color:#fff;cursor:pointer}
button:focus-visible,a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
a{color:#0b57d0}
code{font-size:.9em;background:#efece6;padding:.1em .3em;border-radius:4px}
ul{padding-left:1.25rem}
`;

function page(nonce: string, title: string, content: string, script = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    // No favicon request (it would be a 404 in the console).
    `<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${STYLES}</style>` +
    // The queue snippet first, so a click on the overlay button before widget.js has loaded still works.
    `<script nonce="${nonce}">${QUEUE_SNIPPET}</script><script src="/widget.js" async></script>` +
    `</head><body><header>Demo shop</header><main>${content}</main>${script}</body></html>`
  );
}

const SIGNUP_LEFT = ['Sign-up not completed', '<h1>Sign-up not completed</h1><p>No subscription was started, nothing was charged and no card was saved. The page went to the subscription’s <code>cancel_url</code>.</p>'] as const;

/** What the shop says on a return: a payment's, or a subscription sign-up's (its URL names a subscription_id). */
const RESULTS = {
  payment: {
    done: ['Payment received', '<h1>Thank you, your payment was received</h1><p>The page went to the transaction’s <code>return_url</code>. A real shop fulfils the order when its webhook says the transaction is paid (or after <code>GET /v1/transaction/{id}/</code>), never on the return alone.</p>'],
    cancelled: ['Payment cancelled', '<h1>Payment cancelled</h1><p>Nothing was charged. The page went to the transaction’s <code>cancel_url</code>.</p>'],
    left: ['No payment made', '<h1>No payment was made</h1><p>Nothing was charged. The page went to the transaction’s <code>cancel_url</code> without cancelling the payment (the way back to the shop): its link stays open until it expires.</p>'],
  },
  signup: {
    done: ['Subscription confirmed', '<h1>Thank you, your subscription is confirmed</h1><p>Your card was saved for the plan’s charges; nothing more was charged today than the sign-up page said. The page went to the subscription’s <code>return_url</code>. A real shop starts the service when its webhook says the subscription started (<code>subscription.started</code>), never on the return alone.</p>'],
    // A sign-up has no open link to go back to: leaving it is not completing it.
    cancelled: SIGNUP_LEFT,
    left: SIGNUP_LEFT,
  },
} as const;

function resultPage(nonce: string, visit: { url: string; paid: boolean }, check: VerifiedReturn): string {
  const signup = check.valid ? check.subscription_id !== undefined : new URL(visit.url).searchParams.has('subscription_id');
  const results = RESULTS[signup ? 'signup' : 'payment'];
  // Only a signed return tells a cancelled payment from a customer who just went back.
  const [title, message] = visit.paid ? results.done : check.valid && check.status === 'C' ? results.cancelled : results.left;
  // What a shop's server does on every return: verify its signature (docs/checkout.md).
  const subject = check.valid && (check.subscription_id === undefined ? `transaction <code>${escapeHtml(check.transaction_id)}</code>` : `subscription <code>${escapeHtml(check.subscription_id)}</code>`);
  const verified = check.valid
    ? `<p id="return-check">Signed return verified: ${subject}, status <code>${escapeHtml(check.status)}</code>.</p>`
    : `<p id="return-check">This return could not be verified (${check.reason}): it is not trusted.</p>`;
  return page(
    nonce,
    `${title} · Demo shop`,
    `<div class="result${visit.paid ? '' : ' result--cancelled'}" role="status">${message}${verified}</div><p><a href="/demo/">Back to the demo shop</a></p>`,
  );
}

/** Verifies a return with the demo environment's return-signing secret (and, during a roll, the previous one). */
async function checkReturn(deps: Deps, envId: string, url: string): Promise<VerifiedReturn> {
  const now = deps.now();
  const { secret, previous } = await findReturnSecrets(deps.database.db, envId, now);
  const current = verifyReturn(url, secret, now);
  return current.valid || !previous ? current : verifyReturn(url, previous.secret, now);
}

/** The test cards the demo shop lists, with what each does. */
const SHOWN_CARDS: [TestCardBehaviour, string][] = [
  ['approved', 'approved'],
  ['declined', 'declined'],
  ['insufficientFunds', 'declined: insufficient funds'],
];

function shopPage(nonce: string, inline: { token: string; total: string }, overlay: { token: string; total: string }, gateways: readonly Gateway[]): string {
  const cards = SHOWN_CARDS.flatMap(([behaviour, outcome]) => {
    const card = testCardFor(gateways, behaviour);
    return card ? [`<li><code>${escapeHtml(card)}</code> ${outcome}</li>`] : [];
  }).join('');
  const content = `
<h1>Checkout widget demo</h1>
<p>A stand-in merchant page. Each visit creates two sandbox transactions of the demo environment and embeds their payment screens with <code>/widget.js</code>.</p>
<p>The API these transactions were created with: <a href="/docs/">API reference</a> (from <code>/v1/openapi.json</code>).</p>
<div class="grid">
<section aria-labelledby="inline-title">
<h2 id="inline-title">Inline: ${escapeHtml(INLINE_ORDER.amount + ' × ' + INLINE_ORDER.name)}, ${escapeHtml(inline.total)}</h2>
<p>An element with <code>data-checkout-token</code> becomes the payment frame.</p>
<div data-checkout-token="${escapeHtml(inline.token)}"><a href="/pay/${escapeHtml(inline.token)}/">Pay ${escapeHtml(inline.total)}</a></div>
</section>
<div class="stack">
<section aria-labelledby="overlay-title">
<h2 id="overlay-title">Overlay: ${escapeHtml(OVERLAY_ORDER.name)}, ${escapeHtml(overlay.total)}</h2>
<p><code>Checkout.open({token})</code> shows the same screen in a dialog.</p>
<button type="button" id="open-overlay">Buy the mug</button>
</section>
<aside aria-labelledby="cards-title">
<h2 id="cards-title">Test cards</h2>
<ul>${cards}</ul>
<p>Any future expiry date (e.g. <code>12/34</code>), any 3-digit CVC, any name. “Sandbox Pay” shows a provider approval page instead.</p>
</aside>
</div>
</div>`;
  const script = `<script nonce="${nonce}">document.getElementById('open-overlay').addEventListener('click',function(){Checkout.open({token:${JSON.stringify(overlay.token)}})});</script>`;
  return page(nonce, 'Demo shop · checkout widget', content, script);
}

/** Every header of a demo page. */
function demoHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      // 'self' is /widget.js; the inline snippet and the button's handler carry the nonce.
      `script-src 'nonce-${nonce}' 'self'`,
      `style-src 'nonce-${nonce}'`,
      "frame-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // Every visit creates new transactions: never a cached page.
    'Cache-Control': 'no-store',
  };
}

/**
 * The demo shop's page for one visit (app.ts mounts it at /demo/), or null while there is
 * no demo environment (then /demo/ is a 404 like any unknown path).
 */
/** The cookie that remembers a visitor's open demo orders: their two tokens. */
export const DEMO_COOKIE = 'demo_orders';

/** A visitor's order from an earlier visit, while it can still be paid; null otherwise. */
async function openOrder(deps: Deps, envId: string, token: string | undefined) {
  const found = token ? await findCheckout(deps.database.db, token) : undefined;
  const row = found?.row;
  if (!row || row.environment_id !== envId || row.status !== 'N' || Date.parse(row.expired_at) <= deps.now().getTime()) return null;
  const exponent = findCurrency(row.currency)?.exponent ?? 2;
  return { token: row.token, total: formatMoney(row.total_price, row.currency, exponent, 'en-IE') };
}

/**
 * The shop page. Each visitor has at most one open transaction per order shown: the
 * tokens of the last visit come back in a cookie (`kept`) and are shown again while they
 * can be paid, so reloading the page creates nothing.
 */
export async function demoPage(
  deps: Deps,
  /** `url`: the whole URL the visitor asked for, to verify a signed return. */
  visit: { baseUrl: string; url: string; paid: boolean; cancelled: boolean; kept: string[] },
): Promise<{ headers: Record<string, string>; html: string } | null> {
  const env = await findDemoEnvironment(deps.database.db);
  if (!env) return null;
  const nonce = newNonce();
  const headers = demoHeaders(nonce);
  if (visit.paid || visit.cancelled) return { headers, html: resultPage(nonce, visit, await checkReturn(deps, env.id, visit.url)) };
  const inline = (await openOrder(deps, env.id, visit.kept[0])) ?? (await demoTransaction(deps, env, visit.baseUrl, INLINE_ORDER));
  const overlay = (await openOrder(deps, env.id, visit.kept[1])) ?? (await demoTransaction(deps, env, visit.baseUrl, OVERLAY_ORDER));
  const cookie = `${DEMO_COOKIE}=${inline.token}.${overlay.token}; Path=/demo/; Max-Age=3600; HttpOnly; SameSite=Lax`;
  return { headers: { ...headers, 'Set-Cookie': cookie }, html: shopPage(nonce, inline, overlay, (await deps.gateways.of(env.id)).usable(false)) };
}
