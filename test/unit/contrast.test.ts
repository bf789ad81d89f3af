import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bandContrast, buttonContrast, contrast, readableBrandColor } from '../../server/domain/contrast';

// The brand colour rule: whatever a merchant sends, the pay button's text and the links
// reach WCAG AA (4.5:1) in both themes; the button keeps the colour as sent whenever white or
// the page's dark text reads on it, and only a colour neither reads on is darkened.

const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);

describe('readableBrandColor', () => {
  it('knows the WCAG figures: black on white 21:1, white on white 1:1, #767676 on white 4.54:1', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#ffffff', '#ffffff')).toBe(1);
    expect(contrast('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('gives every colour a button whose text reads, links readable on the light page, and a dark variant readable on the dark page', () => {
    fc.assert(
      fc.property(hex, (color) => {
        const { button, onButton, light, dark } = readableBrandColor(color);
        expect(contrast(button, onButton)).toBeGreaterThanOrEqual(4.5);
        expect(contrast(light, '#f3f4f7')).toBeGreaterThanOrEqual(4.5);
        expect(contrast(dark, '#1d222b')).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the colour as sent (lower case) when white or dark text reads on it, and reports the contrast of one it darkened', () => {
    fc.assert(
      fc.property(hex, (color) => {
        const result = readableBrandColor(color.toUpperCase());
        const reads = contrast(color, '#ffffff') >= 4.5 || contrast(color, '#161a22') >= 4.5;
        if (reads) expect(result).toMatchObject({ button: color, adjustedFrom: null });
        else expect(result).toMatchObject({ onButton: '#ffffff', adjustedFrom: Math.round(contrast(color, '#ffffff') * 100) / 100 });
      }),
      { numRuns: 2000 },
    );
    // A yellow stays yellow with dark text; its links on the light page are a darker shade.
    expect(readableBrandColor('#FFDD00')).toEqual({ button: '#ffdd00', onButton: '#161a22', light: '#806f00', dark: '#ffdd00', adjustedFrom: null });
    // Our blue takes white text and is its own link colour.
    expect(readableBrandColor('#1d4ed8')).toMatchObject({ button: '#1d4ed8', onButton: '#ffffff', light: '#1d4ed8' });
    // A mid grey reads neither white (4:1) nor dark text (4.35:1): darkened under white text.
    const grey = readableBrandColor('#7f7f7f');
    expect(grey).toMatchObject({ onButton: '#ffffff', adjustedFrom: 4 });
    expect(grey.button).not.toBe('#7f7f7f');
  });
});

// What the dashboard's settings say beside a colour (colour-field.tsx), figures checked by hand
// with WCAG's formula: #ffdd00 with #161a22 12.94:1, #1d4ed8 with white 6.70:1, #7f7f7f with
// white 4.00:1 and with #161a22 4.35:1 (neither reaches 4.5:1), #ffdd00 on white 1.35:1.
describe('buttonContrast and bandContrast', () => {
  it('names the text the button takes (dark first on a light colour), its contrast rounded down, and the colour a mid-tone is darkened to', () => {
    expect(buttonContrast('#FFDD00')).toEqual({ text: 'dark', ratio: 12.94, darkenedTo: null });
    expect(buttonContrast('#1d4ed8')).toEqual({ text: 'light', ratio: 6.7, darkenedTo: null });
    const grey = buttonContrast('#7f7f7f');
    expect(grey.text).toBe('light');
    expect(grey.darkenedTo).toBe(readableBrandColor('#7f7f7f').button);
    expect(grey.darkenedTo).not.toBe('#7f7f7f');
    expect(grey.ratio).toBeGreaterThanOrEqual(4.5);
    expect(bandContrast('#ffdd00')).toBe(1.34);
    expect(bandContrast('#000000')).toBe(21);
  });

  it('never states a ratio above what the button really has, and never one under 4.5:1', () => {
    fc.assert(
      fc.property(hex, (color) => {
        const said = buttonContrast(color);
        const { button, onButton } = readableBrandColor(color);
        expect(said.ratio).toBeLessThanOrEqual(contrast(button, onButton));
        expect(said.ratio).toBeGreaterThanOrEqual(4.5);
        expect(said.darkenedTo === null).toBe(button === color);
      }),
      { numRuns: 1000 },
    );
  });
});
