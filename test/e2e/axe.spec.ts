import { expect, test } from './fixtures';
import { axeViolations } from './axe';

// The specs check a page in dark with axe's colour rules only (axe.ts COLOUR_RULES): that
// pass must still see a contrast fault only the dark scheme has, and nothing else.

const PAGE = `<!doctype html><html lang="en"><title>Schemes</title>
<style>p { color: #111; background: #fff } @media (prefers-color-scheme: dark) { p { color: #222; background: #111 } }</style>
<main><p>Dark grey on black in the dark scheme only.</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>`;

test('the colour rules in dark find a contrast fault of the dark scheme; other rules are the light pass’s', async ({ page }) => {
  await page.setContent(PAGE);
  await page.emulateMedia({ colorScheme: 'light' });
  expect((await axeViolations(page)).map((v) => v.id)).toEqual(['image-alt', 'page-has-heading-one']);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect((await axeViolations(page, undefined, 'colours')).map((v) => v.id)).toEqual(['color-contrast']);
});
