import { readableBrandColor } from './contrast';

// The rules a brand change goes through, whoever asks (the API's PATCH
// /v1/environment/branding/ and the dashboard's settings): a brand colour is kept as chosen
// when white or dark text can be read on it; one neither can is darkened until white text
// can (WCAG AA), and the change says so (domain/contrast.ts); the accent colour is kept in
// lower case. Pure.

/** The longest name customers see instead of the environment's. */
export const DISPLAY_NAME_MAX = 80;

export interface BrandChange {
  display_name?: string | null;
  support_email?: string | null;
  brand_color?: string | null;
  accent_color?: string | null;
}

export interface BrandAdjustment {
  field: 'brand_color';
  requested: string;
  applied: string;
  contrast: number;
  reason: string;
}

/** What to store for a valid change, and what it adjusted on the way. */
export function applyBrandRules(change: BrandChange): { patch: BrandChange; adjustments: BrandAdjustment[] } {
  const patch: BrandChange = { ...change };
  const adjustments: BrandAdjustment[] = [];
  if (change.brand_color) {
    const readable = readableBrandColor(change.brand_color);
    patch.brand_color = readable.button;
    if (readable.adjustedFrom !== null) {
      adjustments.push({
        field: 'brand_color',
        requested: change.brand_color,
        applied: readable.button,
        contrast: readable.adjustedFrom,
        reason: `neither white text (${readable.adjustedFrom}:1) nor dark text reaches WCAG AA (4.5:1) on ${change.brand_color}: darkened to ${readable.button}`,
      });
    }
  }
  if (change.accent_color) patch.accent_color = change.accent_color.toLowerCase();
  return { patch, adjustments };
}
