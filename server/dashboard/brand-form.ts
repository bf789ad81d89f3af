import { z } from 'zod';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../../widget/fields/email';
import { SINGLE_LINE } from '../../widget/fields/text';
import { type BrandChange, DISPLAY_NAME_MAX } from '../domain/brand';
import { HEX_COLOR } from '../domain/contrast';
import type { Brand } from '../store/branding';

// The settings page's brand form as the server reads it: the API's field rules
// (api/branding.ts, from the same shared patterns), and each colour given twice without
// script: as hex text and by a colour picker. The picker cannot be empty, so it only
// counts when it was moved from the colour the page showed it at (`…_shown`); then it wins
// over the text. Otherwise the text is the colour, empty meaning the page's own.

export const BRAND_FIELDS = ['display_name', 'support_email', 'brand_color', 'accent_color'] as const;
export type BrandField = (typeof BRAND_FIELDS)[number];
export type BrandForm = Record<BrandField, string>;
export const COLOR_FIELDS = ['brand_color', 'accent_color'] as const;
export type ColorField = (typeof COLOR_FIELDS)[number];

/** What a picker shows for no colour: the payment page's own accent (widget/screen/styles.css, light theme). */
export const PAGE_ACCENT = '#1d4ed8';

export const pickerName = (f: ColorField) => `${f}_picker` as const;
export const shownName = (f: ColorField) => `${f}_shown` as const;

/** A form field: trimmed, empty means "none" (null) as null means it in the API; left out, it is not changed (as in a PATCH). */
const blankIsNull = (s: z.ZodType<string>) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : typeof v === 'string' ? v.trim() : v), s.nullable().optional());

const brandSchema = z.object({
  display_name: blankIsNull(z.string().max(DISPLAY_NAME_MAX).regex(SINGLE_LINE)),
  support_email: blankIsNull(z.string().max(EMAIL_MAX_LENGTH).regex(EMAIL_PATTERN)),
  brand_color: blankIsNull(z.string().regex(HEX_COLOR)),
  accent_color: blankIsNull(z.string().regex(HEX_COLOR)),
});

/** The form's fields as sent, a moved picker's colour in place of its text. */
function formValues(body: Record<string, unknown>): Partial<Record<BrandField, unknown>> {
  const values: Partial<Record<BrandField, unknown>> = {};
  for (const f of BRAND_FIELDS) if (body[f] !== undefined) values[f] = body[f];
  for (const f of COLOR_FIELDS) {
    const picked = body[pickerName(f)];
    const shown = body[shownName(f)];
    if (typeof picked === 'string' && picked.toLowerCase() !== (typeof shown === 'string' ? shown.toLowerCase() : '')) values[f] = picked;
  }
  return values;
}

export type ParsedBrand = { ok: true; change: BrandChange; form: BrandForm } | { ok: false; errors: BrandField[]; form: BrandForm };

/** The form as sent, checked by the API's rules: the change, or the fields in error; `form` is what to show again. */
export function parseBrandForm(body: Record<string, unknown>): ParsedBrand {
  const values = formValues(body);
  const form = Object.fromEntries(BRAND_FIELDS.map((f) => [f, typeof values[f] === 'string' ? values[f] : ''])) as BrandForm;
  const parsed = brandSchema.safeParse(values);
  if (!parsed.success) return { ok: false, errors: [...new Set(parsed.error.issues.map((i) => i.path[0] as BrandField))], form };
  return { ok: true, change: parsed.data, form };
}

export const formOf = (b: Brand): BrandForm => Object.fromEntries(BRAND_FIELDS.map((f) => [f, b[f] ?? ''])) as BrandForm;

/** What a preview of the payment page is drawn with: the brand's fields it shows, by the same rules. */
export const previewSchema = brandSchema.pick({ display_name: true, brand_color: true, accent_color: true });

/** The query of the preview (and of its stylesheet) for a brand as the form holds it. */
export function previewQuery(form: Pick<BrandForm, 'display_name' | 'brand_color' | 'accent_color'>, only?: readonly ColorField[]): string {
  const q = new URLSearchParams();
  for (const f of only ?? (['display_name', ...COLOR_FIELDS] as const)) if (form[f]) q.set(f, form[f]);
  return q.toString();
}
