import { renderScreenPreview } from '../../widget/screen/document';
import type { CheckoutView, Language } from '../../widget/screen/view';
import type { Deps } from '../deps';
import { loadScreenAssets } from './assets';
import { logoPath } from './brand';
import { gatewayOptions } from './view-model';

// The payment page as a brand will make it look, for the dashboard's settings: the screen
// itself, server-rendered with a sample order and the environment's own payment methods,
// but with no transaction, no token, no CSRF token and no script, so nothing on it can pay.

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** A sample order in minor units: one line, EUR, the currency every sandbox offers. */
const SAMPLE = { currency: 'EUR', exponent: 2, price: 2450 };

export interface BrandPreview {
  environmentId: string;
  live: boolean;
  language: Language;
  merchantName: string;
  /** The sample line's name, in the dashboard's language. */
  product: string;
  /** The URL of the colours' stylesheet; null: the page's own colours. */
  stylesheet: string | null;
  /** The saved logo's hash, if any. */
  logo: string | null;
}

export async function brandPreviewPage(deps: Pick<Deps, 'gateways' | 'now'>, p: BrandPreview): Promise<string> {
  const now = deps.now();
  const order = { currency: SAMPLE.currency, authorize: false, total_price: SAMPLE.price };
  const gateways = gatewayOptions(await deps.gateways.of(p.environmentId), order, p.live);
  const view: CheckoutView = {
    language: p.language,
    merchantName: p.merchantName,
    orderId: null,
    currency: SAMPLE.currency,
    exponent: SAMPLE.exponent,
    lines: [{ name: p.product, description: null, quantity: '1', unitPrice: SAMPLE.price, lineTotal: SAMPLE.price }],
    itemsPrice: SAMPLE.price,
    tax: null,
    shipping: null,
    coupon: null,
    totalPrice: SAMPLE.price,
    expiresAt: new Date(now.getTime() + WEEK_MS).toISOString(),
    serverNow: now.toISOString(),
    status: 'pending',
    gateways,
    selectedGateway: gateways[0]?.id ?? null,
    error: null,
    receipt: null,
    csrf: '',
    embed: null,
    brand: p.stylesheet || p.logo ? { stylesheet: p.stylesheet, logo: p.logo ? logoPath(p.environmentId, p.logo) : null } : null,
    sandbox: !p.live,
  };
  return renderScreenPreview({ view, assets: loadScreenAssets() });
}
