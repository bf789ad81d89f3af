import type { IRouter } from 'express';
import { brandStylesheet } from '../checkout/brand';
import { brandPreviewPage } from '../checkout/brand-preview';
import { getBrand } from '../store/branding';
import { messagePage } from './account-pages';
import { COLOR_FIELDS, previewQuery, previewSchema } from './brand-form';
import { framedPreviewHeaders } from './http';
import type { Kit } from './kit';

// The settings page's preview of the payment page, framed in it at a phone's and a
// desktop's width: the checkout screen itself (checkout/brand-preview.ts) in the brand the
// query gives (the form's colours and name, saved or not), with the saved logo. Its colours
// come as a stylesheet of our origin, as on the payment page: an unsaved brand has no
// /brand/ URL, so the preview serves its own, made by the payment page's rule.

export const PREVIEW_PATH = '/dashboard/settings/preview/';

export function previewRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, send, textOf } = kit;

  router.get('/settings/preview/', page('viewer', async (req, res, s) => {
    framedPreviewHeaders(res);
    const text = textOf(req);
    const query = previewSchema.safeParse(req.query);
    if (!query.success) return send(res, 400, messagePage(text, text.t('settings.previewInvalid'), text.t('settings.previewInvalidBody')));
    const brand = (await getBrand(db, s.current.environment_id))!;
    const colours = { brand_color: query.data.brand_color ?? '', accent_color: query.data.accent_color ?? '' };
    const html = await brandPreviewPage(deps, {
      environmentId: s.current.environment_id,
      live: s.current.environment_mode === 'live',
      language: text.language,
      merchantName: query.data.display_name ?? brand.name,
      product: text.t('settings.previewProduct'),
      stylesheet: colours.brand_color || colours.accent_color ? `${PREVIEW_PATH}brand.css?${previewQuery({ display_name: '', ...colours }, COLOR_FIELDS)}` : null,
      logo: brand.logo_sha256 ?? null,
    });
    send(res, 200, html);
  }));

  router.get('/settings/preview/brand.css', page('viewer', async (req, res) => {
    const query = previewSchema.safeParse(req.query);
    if (!query.success) return void res.status(400).type('text/plain').send('Not a colour');
    res.status(200).type('text/css; charset=utf-8').send(brandStylesheet({ color: query.data.brand_color ?? null, accent: query.data.accent_color ?? null }));
  }));
}
