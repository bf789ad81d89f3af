// WCAG 2.x contrast between colours, and how a merchant's brand colour is kept readable. The
// pay button carries the colour as the merchant chose it, with the page's dark text or white
// on it, whichever reads (a yellow keeps its yellow with dark text rather than turning olive);
// only a mid-tone that neither reaches AA's 4.5:1 on is darkened until white text does. The
// page's links and focus rings, text on its light backgrounds, use the colour itself or a
// darker shade of it; the dark theme writes dark text on a light variant, which also shows on
// the dark backgrounds. The colours are the payment screen's (widget/screen/styles.css). Pure.

const AA_TEXT = 4.5;
const WHITE = '#ffffff';
/** The light theme's text (`--text`): the button's dark text on a light brand colour. */
const DARK_TEXT = '#161a22';
/** The light theme's darkest background (`--bg`): white text and this both need the contrast. */
const LIGHT_BG = '#f3f4f7';
/** The dark theme's lightest background (`--surface-2`); its text on the accent is darker still. */
const DARK_BG = '#1d222b';

export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

function channels(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const toHex = (rgb: number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `hex` mixed towards `target` by `t` (0: unchanged, 1: the target). */
function mix(hex: string, target: string, t: number): string {
  const from = channels(hex);
  const to = channels(target);
  return toHex(from.map((c, i) => c + (to[i]! - c) * t));
}

/** The least mix of `hex` towards `target` that reaches `ratio` against `against` (steps of 1 %). */
function nearestReadable(hex: string, target: string, against: string, ratio: number): string {
  for (let step = 0; step <= 100; step++) {
    const candidate = mix(hex, target, step / 100);
    if (contrast(candidate, against) >= ratio) return candidate;
  }
  return target;
}

export interface ReadableColor {
  /** The pay button's colour, lower case: the one asked for unless no text could be read on it. */
  button: string;
  /** The button's text: white, or the page's dark text where white fails AA and dark text reaches it. */
  onButton: string;
  /** Links and focus on the light theme's backgrounds: the button's colour, or the nearest darker shade that reads. */
  light: string;
  /** Its variant for the dark theme. */
  dark: string;
  /** Contrast of white text on the colour asked for, when no text read on it and it had to be darkened. */
  adjustedFrom: number | null;
}

/** A brand colour the pay button can carry with AA contrast in both themes. */
export function readableBrandColor(requested: string): ReadableColor {
  const hex = requested.toLowerCase();
  const whiteReads = contrast(hex, WHITE) >= AA_TEXT;
  const darkReads = !whiteReads && contrast(hex, DARK_TEXT) >= AA_TEXT;
  const button = whiteReads || darkReads ? hex : nearestReadable(hex, '#000000', WHITE, AA_TEXT);
  return {
    button,
    onButton: darkReads ? DARK_TEXT : WHITE,
    light: nearestReadable(button, '#000000', LIGHT_BG, AA_TEXT),
    dark: nearestReadable(hex, WHITE, DARK_BG, AA_TEXT),
    adjustedFrom: button === hex ? null : Math.round(contrast(hex, WHITE) * 100) / 100,
  };
}

/** What the settings page says of a brand colour: the pay button's text, its contrast, and any darkening. */
export interface ButtonContrast {
  text: 'dark' | 'light';
  /** Contrast of that text on the button as the page draws it, rounded down to 2 decimals (never overstated). */
  ratio: number;
  /** Neither text reached 4.5:1 on the colour asked for: the colour the page darkens it to. */
  darkenedTo: string | null;
}

const floor2 = (n: number) => Math.floor(n * 100) / 100;

export function buttonContrast(requested: string): ButtonContrast {
  const { button, onButton } = readableBrandColor(requested);
  return { text: onButton === WHITE ? 'light' : 'dark', ratio: floor2(contrast(button, onButton)), darkenedTo: button === requested.toLowerCase() ? null : button };
}

/** Contrast of the accent band with the white payment card it tops (WCAG's 3:1 for graphics). */
export const bandContrast = (accent: string) => floor2(contrast(accent, WHITE));
