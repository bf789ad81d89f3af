import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../../widget/fields/email';
import { SINGLE_LINE } from '../../widget/fields/text';
import { applyBrandRules, type BrandAdjustment, type BrandChange, DISPLAY_NAME_MAX } from '../domain/brand';
import { HEX_COLOR } from '../domain/contrast';
import { isTimeZone } from '../domain/time-zone';
import { pricingOf } from '../store/balance';
import { getBrand, updateBrand } from '../store/branding';
import { setTimeZone } from '../store/environments';
import { rawCardNumbers } from '../store/saved-cards';
import { logoRoutes } from './logo-routes';
import type { ActiveSession } from './accounts';
import type { Kit } from './kit';
import type { LogoError } from './logo-form';
import { type BrandForm, settingsPage } from './settings-page';

// /dashboard/settings/: the environment's brand (changed by owners and admins through the
// same rules and store as PATCH /v1/environment/branding/), its time zone (the dashboard's
// times, days and exports), its pricing, mode and raw card setting (read-only: the
// operator's, `npm run keys`).

const FIELDS = ['display_name', 'support_email', 'brand_color', 'accent_color'] as const;
type Field = (typeof FIELDS)[number];

/** A form field: trimmed, empty means "none" (null) as null means it in the API; left out, it is not changed (as in a PATCH). */
const blankIsNull = (s: z.ZodType<string>) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v), s.nullable().optional());

// The API's field rules (api/branding.ts), built from the same shared patterns.
const settingsForm = z.object({
  display_name: blankIsNull(z.string().max(DISPLAY_NAME_MAX).regex(SINGLE_LINE)),
  support_email: blankIsNull(z.string().max(EMAIL_MAX_LENGTH).regex(EMAIL_PATTERN)),
  brand_color: blankIsNull(z.string().regex(HEX_COLOR)),
  accent_color: blankIsNull(z.string().regex(HEX_COLOR)),
});

const timeZoneForm = z.object({ time_zone: z.string().refine(isTimeZone) });

export type ShowOptions = { status?: number; form?: BrandForm; errors?: Field[]; adjustments?: BrandAdjustment[]; saved?: boolean; logoError?: LogoError; done?: 'logo' | 'logoRemoved' | 'timeZone'; timeZoneInvalid?: boolean };

const formOf = (b: BrandChange): BrandForm => Object.fromEntries(FIELDS.map((f) => [f, b[f] ?? ''])) as BrandForm;

export function settingsRoutes(router: IRouter, kit: Kit): void {
  const { db, forms, page, action, send, textOf, audit } = kit;

  async function show(req: Request, res: Response, s: ActiveSession, o: ShowOptions = {}) {
    const environmentId = s.current.environment_id;
    const [brand, pricing, rawCards] = await Promise.all([getBrand(db, environmentId), pricingOf(db, environmentId), rawCardNumbers(db, environmentId)]);
    send(
      res,
      o.status ?? 200,
      settingsPage({ text: textOf(req), session: s, brand: brand!, form: o.form ?? formOf(brand!), errors: o.errors ?? [], adjustments: o.adjustments ?? [], saved: o.saved ?? false, pricing, rawCards, logoError: o.logoError, done: o.done, timeZoneInvalid: o.timeZoneInvalid }),
    );
  }

  const done = (q: unknown) => (q === 'logo' || q === 'logoRemoved' || q === 'timeZone' ? q : undefined);
  router.get('/settings/', page('viewer', async (req, res, s) => show(req, res, s, { saved: req.query.saved === '1', done: done(req.query.done) })));
  logoRoutes(router, kit, show);

  router.post('/settings/', forms, action('admin', async (req, res, s) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = settingsForm.safeParse(body);
    if (!parsed.success) {
      const errors = [...new Set(parsed.error.issues.map((i) => i.path[0] as Field))];
      const form = Object.fromEntries(FIELDS.map((f) => [f, typeof body[f] === 'string' ? (body[f] as string) : ''])) as BrandForm;
      return show(req, res, s, { status: 400, form, errors });
    }
    const before = (await getBrand(db, s.current.environment_id))!;
    const changed = FIELDS.filter((f) => parsed.data[f] !== undefined && (before[f] ?? null) !== parsed.data[f]);
    const { patch, adjustments } = applyBrandRules(Object.fromEntries(changed.map((f) => [f, parsed.data[f]])));
    await updateBrand(db, s.current.environment_id, patch);
    if (changed.length) await audit(req, s, 'settings_changed', { fields: changed.join(', ') });
    if (adjustments.length) return show(req, res, s, { adjustments, saved: true });
    res.redirect(303, '/dashboard/settings/?saved=1');
  }));

  router.post('/settings/time-zone/', forms, action('admin', async (req, res, s) => {
    const parsed = timeZoneForm.safeParse(req.body ?? {});
    if (!parsed.success) return show(req, res, s, { status: 400, timeZoneInvalid: true });
    const timeZone = parsed.data.time_zone;
    if (timeZone !== s.current.environment_time_zone) {
      await setTimeZone(db, s.current.environment_id, timeZone);
      await audit(req, s, 'settings_changed', { fields: 'time_zone', time_zone: timeZone });
    }
    res.redirect(303, '/dashboard/settings/?done=timeZone');
  }));
}
