import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contrast, readableBrandColor } from '../../server/domain/contrast';

// The brand colour rule: whatever a merchant sends, the pay button's text and the links
// reach WCAG AA (4.5:1) in both themes, and a colour that already does is kept as sent.

const hex = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);

describe('readableBrandColor', () => {
  it('knows the WCAG figures: black on white 21:1, white on white 1:1, #767676 on white 4.54:1', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#ffffff', '#ffffff')).toBe(1);
    expect(contrast('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('gives every colour a light variant readable under white text and on the light page, and a dark variant readable on the dark page', () => {
    fc.assert(
      fc.property(hex, (color) => {
        const { light, dark } = readableBrandColor(color);
        expect(contrast(light, '#ffffff')).toBeGreaterThanOrEqual(4.5);
        expect(contrast(light, '#f3f4f7')).toBeGreaterThanOrEqual(4.5);
        expect(contrast(dark, '#1d222b')).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a readable colour as sent (lower case) and reports the contrast of one it darkened', () => {
    fc.assert(
      fc.property(hex, (color) => {
        const result = readableBrandColor(color.toUpperCase());
        if (contrast(color, '#f3f4f7') >= 4.5) expect(result).toMatchObject({ light: color, adjustedFrom: null });
        else expect(result.adjustedFrom).toBeCloseTo(contrast(color, '#ffffff'), 2);
      }),
      { numRuns: 2000 },
    );
    expect(readableBrandColor('#FFDD00')).toEqual({ light: '#806f00', dark: '#ffdd00', adjustedFrom: 1.35 });
  });
});
