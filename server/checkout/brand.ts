import { createHash } from 'node:crypto';
import { type IRouter, Router } from 'express';
import type { CheckoutView } from '../../widget/screen/view';
import type { Deps } from '../deps';
import { readableBrandColor } from '../domain/contrast';
import { findLogo, getBrand } from '../store/branding';
import type { PageBrand } from '../store/environments';

// A merchant's brand on its pages, within the page's CSP (`style-src 'self'`, `img-src
// 'self'`: no inline style): its colours as a small stylesheet and its logo, both served
// from our origin under URLs that change with their content, so browsers keep them for a
// year and a new brand is a new URL.

const YEAR_S = 365 * 24 * 60 * 60;
const IMMUTABLE = `public, max-age=${YEAR_S}, immutable`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HASH = /^[0-9a-f]{64}$/;

export const logoPath = (environmentId: string, sha256: string) => `/brand/${environmentId}/${sha256}`;

/** The colours' stylesheet: custom properties of widget/screen/styles.css, for both themes. */
export function brandStylesheet(brand: Pick<PageBrand, 'color' | 'accent'>): string {
  const rules: string[] = [];
  if (brand.color) {
    // The button keeps the colour with the text that reads on it; links and focus, text on
    // the page's light backgrounds, a shade dark enough; the dark theme its light variant.
    const { button, onButton, light, dark } = readableBrandColor(brand.color);
    rules.push(`:root{--accent:${light};--accent-strong:${button};--focus:${light};--pay:${button};--on-pay:${onButton}}`);
    rules.push(`@media (prefers-color-scheme:dark){:root{--accent:${dark};--accent-strong:${dark};--focus:${dark};--pay:${dark};--on-pay:var(--on-accent)}}`);
  }
  const band = brand.accent ?? brand.color;
  if (band) rules.push(`.merchant{border-top:4px solid ${band}}`);
  return rules.join('\n');
}

const styleVersion = (brand: Pick<PageBrand, 'color' | 'accent'>) =>
  createHash('sha256').update(brandStylesheet(brand)).digest('hex').slice(0, 16);

/** What the screen needs of the brand: its stylesheet and logo URLs, or null for the page's own look. */
export function brandView(environmentId: string, brand: PageBrand): CheckoutView['brand'] {
  const stylesheet = brand.color || brand.accent ? `/brand/${environmentId}/${styleVersion(brand)}.css` : null;
  const logo = brand.logo ? logoPath(environmentId, brand.logo) : null;
  return stylesheet || logo ? { stylesheet, logo } : null;
}

function notFound(res: import('express').Response) {
  res.status(404).set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }).type('text/plain').send('Not found');
}

/** GET /brand/{environment}/{sha256} (the logo) and /brand/{environment}/{version}.css. */
export function brandRouter(deps: Deps): IRouter {
  const db = deps.database.db;
  const router = Router({ strict: true });
  router.get('/brand/:environment/:file', async (req, res) => {
    const { environment, file } = req.params;
    if (!UUID.test(environment)) return notFound(res);
    const common = { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin', 'Cache-Control': IMMUTABLE };
    if (file.endsWith('.css')) {
      const brand = await getBrand(db, environment);
      const colors = { color: brand?.brand_color ?? null, accent: brand?.accent_color ?? null };
      // Only the version the page names: an old URL must not be cached with new content.
      if (!brand || (!colors.color && !colors.accent) || file !== `${styleVersion(colors)}.css`) return notFound(res);
      return void res.status(200).set(common).type('text/css; charset=utf-8').send(brandStylesheet(colors));
    }
    if (!HASH.test(file)) return notFound(res);
    const logo = await findLogo(db, environment, file);
    if (!logo) return notFound(res);
    // An image only, never a document: nothing in it may run, even opened on its own.
    res
      .status(200)
      .set({ ...common, 'Content-Type': logo.content_type, 'Content-Security-Policy': "default-src 'none'; sandbox" })
      .end(Buffer.from(logo.data));
  });
  return router;
}
