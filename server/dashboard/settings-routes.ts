import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { applyBrandRules, type BrandAdjustment } from '../domain/brand';
import { LOGO_MAX_BYTES } from '../domain/logo';
import { isTimeZone } from '../domain/time-zone';
import { balanceCurrencies, pricingOf } from '../store/balance';
import { getBrand, saveBrandForm } from '../store/branding';
import { setTimeZone } from '../store/environments';
import { rawCardNumbers } from '../store/saved-cards';
import type { ActiveSession } from './accounts';
import { BRAND_FIELDS, type BrandField, type BrandForm, formOf, parseBrandForm } from './brand-form';
import { allowPreviewFrames } from './http';
import type { Kit } from './kit';
import { checkedLogo, hugeLogoPage, type LogoError, logoRemoveRoute } from './logo-routes';
import { previewRoutes } from './preview-routes';
import { settingsPage } from './settings-page';
import { multipartForm } from './upload';

// /dashboard/settings/: the environment's brand and logo in one form (changed by owners and
// admins through the same rules and store as PATCH /v1/environment/branding/ and POST
// …/logo/; "Preview" shows the form's brand on the payment page's preview without saving
// it), its time zone (the dashboard's times, days and exports), its pricing, mode and raw
// card setting (read-only: the operator's, `npm run keys`). In a test/live pair the brand and
// time zone saved in the live half are saved, and audited, in its sandbox too (store/environment-pairs.ts);
// the store audits each change in the transaction that saves it.

const timeZoneForm = z.object({ time_zone: z.string().refine(isTimeZone) });

export type ShowOptions = {
  status?: number;
  form?: BrandForm;
  errors?: BrandField[];
  adjustments?: BrandAdjustment[];
  saved?: boolean;
  /** The form's brand is shown in the preview, not saved. */
  previewing?: boolean;
  logoError?: LogoError;
  done?: 'logoRemoved' | 'timeZone';
  timeZoneInvalid?: boolean;
};

export function settingsRoutes(router: IRouter, kit: Kit): void {
  const { db, page, action, send, textOf } = kit;

  async function show(req: Request, res: Response, s: ActiveSession, o: ShowOptions = {}) {
    const environmentId = s.current.environment_id;
    const [brand, pricing, rawCards, currencies] = await Promise.all([getBrand(db, environmentId), pricingOf(db, environmentId), rawCardNumbers(db, environmentId), balanceCurrencies(db, environmentId)]);
    allowPreviewFrames(res);
    const saved = formOf(brand!);
    send(res, o.status ?? 200, settingsPage({ text: textOf(req), session: s, brand: brand!, form: o.form ?? saved, previewed: o.previewing ? o.form! : saved, errors: o.errors ?? [], adjustments: o.adjustments ?? [], saved: o.saved ?? false, pricing, currencies, rawCards, logoError: o.logoError, done: o.done, timeZoneInvalid: o.timeZoneInvalid, previewing: o.previewing ?? false }));
  }

  const done = (q: unknown) => (q === 'logoRemoved' || q === 'timeZone' ? q : undefined);
  router.get('/settings/', page('viewer', async (req, res, s) => show(req, res, s, { saved: req.query.saved === '1', done: done(req.query.done) })));
  previewRoutes(router, kit);
  logoRemoveRoute(router, kit);

  // Multipart from the page (the logo's file); urlencoded from a client without a file.
  router.post('/settings/', multipartForm('logo', { fileBytes: LOGO_MAX_BYTES }, hugeLogoPage(kit)), kit.forms, action('admin', async (req, res, s) => {
    const body = req.body as Record<string, unknown>;
    const brand = parseBrandForm(body);
    const logo = await checkedLogo(req.uploads?.[0]);
    if (!brand.ok || 'error' in logo) {
      return show(req, res, s, { status: 400, form: brand.form, errors: brand.ok ? [] : brand.errors, logoError: 'error' in logo ? logo.error : undefined });
    }
    if (body.intent === 'preview') return show(req, res, s, { form: brand.form, previewing: true });
    const before = (await getBrand(db, s.current.environment_id))!;
    const changed = BRAND_FIELDS.filter((f) => brand.change[f] !== undefined && (before[f] ?? null) !== brand.change[f]);
    const { patch, adjustments } = applyBrandRules(Object.fromEntries(changed.map((f) => [f, brand.change[f]])));
    await saveBrandForm(db, s.current.environment_id, patch, logo.logo, kit.actor(req, s), kit.deps.now());
    if (adjustments.length) return show(req, res, s, { adjustments, saved: true });
    res.redirect(303, '/dashboard/settings/?saved=1');
  }));

  router.post('/settings/time-zone/', kit.forms, action('admin', async (req, res, s) => {
    const parsed = timeZoneForm.safeParse(req.body ?? {});
    if (!parsed.success) return show(req, res, s, { status: 400, timeZoneInvalid: true });
    const timeZone = parsed.data.time_zone;
    if (timeZone !== s.current.environment_time_zone) {
      await setTimeZone(db, s.current.environment_id, timeZone, kit.actor(req, s), kit.deps.now());
    }
    res.redirect(303, '/dashboard/settings/?done=timeZone');
  }));
}
