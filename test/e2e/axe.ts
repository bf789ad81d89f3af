import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import axe from 'axe-core';

// axe-core as every spec runs it: the builder's default rules over the whole page (or
// within `include`), for less time than `new AxeBuilder({ page }).analyze()` takes.
//
// - resultTypes ['violations']: axe still runs every rule on every node; only for the passes
//   and the incomplete does it stop after one node instead of building a unique selector for
//   each of them (thousands on /docs/). The specs read the violations, which stay whole.
// - A page with no frame is checked by axe.run inside it (the builder's "legacy mode"),
//   rather than by runPartial there and finishRun in a second, blank page fed with the
//   partial results: the same rules over the same nodes, without the copy and the page.
//   A page with frames (the widget's host, the challenge's) keeps the frame-by-frame run,
//   which reaches into frames of other origins.
// - On a page with no frame, axe's source (560 KB) is put into the document once, not twice
//   per analysis as the builder does: the specs check each page four times (light and dark,
//   360 px and 1280 px), and on a small page putting the source in took longer than the
//   analysis itself (a dashboard page: 1–1.5 s per builder analysis, 0.15 s of it axe.run).
//   A new document (a navigation) gets the source again, or has it from its start on a
//   page given axeInEveryDocument (below). Each analysis is the builder's
//   legacy one: axe.run with the same context and options, after the same axe.configure.
//
// On /docs/ (6,000 elements) a run went from 16–17 s to 6–7 s of a quiet core's time (axe-core 4.11).
//
// axe-core is this project's own (package.json), given to the builder too (`axeSource`):
// 4.14 ships its classes' private fields as they are, where 4.11–4.13 emulate each with a
// WeakMap (six for every colour the contrast rule makes, and the garbage collector's work
// with them), and on /docs/ a full run takes 2.3–2.6 s against 5.7–6.9 s
// (docs/performance-changelog.md). @axe-core/playwright stays at 4.13, the last that
// declares no Node above 20.

export type Violations = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'];

const OPTIONS: axe.RunOptions = { resultTypes: ['violations'] };
/**
 * The rules a colour scheme can change. Our stylesheets' dark scheme sets colour custom
 * properties and nothing else (no display, size or content), so a second pass in the other
 * scheme runs only these: names, roles, landmarks and the rest were checked in the first.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];
/** Every rule, or only those a colour scheme changes (after a full pass in the other scheme). */
export type AxeRules = 'all' | 'colours';
// What the builder configures before a legacy run.
const CONFIGURE = `axe.configure({ allowedOrigins: ['<same_origin>'], branding: { application: 'playwright' } })`;

const everyDocument = new WeakSet<Page>();

/**
 * From the next navigation on, axe's source (and the builder's configuration) is put into
 * each of `page`'s documents as it starts (an init script), for the pages of a spec that
 * checks one page after another: evaluated there, the source took 0.7–2.7 s per document
 * and the first analysis after it 0.9–4 s (cold code), against 0.3–0.9 s for both as an
 * init script (a dashboard page, load average 15–20). For specs whose checked pages run no
 * script of their own (the dashboard's): a page's scripts would share their window with axe.
 */
export async function axeInEveryDocument(page: Page): Promise<void> {
  if (everyDocument.has(page)) return;
  everyDocument.add(page);
  await page.addInitScript({ content: `${axe.source}\n${CONFIGURE}` });
}

/**
 * `frames: false` checks the top document alone: for a page whose frames are previews of a
 * page its own specs check (the dashboard's settings show the payment page, inert, in two
 * frames), where going into them cost about 30 s a pass and checked nothing new.
 */
export async function axeViolations(page: Page, include?: string, rules: AxeRules = 'all', { frames = true }: { frames?: boolean } = {}): Promise<Violations> {
  const ruleOptions: axe.RunOptions = rules === 'all' ? OPTIONS : { ...OPTIONS, runOnly: { type: 'rule', values: COLOUR_RULES } };
  const options: axe.RunOptions = frames ? ruleOptions : { ...ruleOptions, iframes: false };
  if (frames && page.frames().length > 1) {
    const builder = new AxeBuilder({ page, axeSource: axe.source }).options(options);
    if (include) builder.include(include);
    return (await builder.analyze()).violations;
  }
  // As the builder's legacy mode: its context ({ include, exclude } from include()), its
  // configuration, axe.run's result or its error. The source is put in by page.evaluate as
  // the builder does (the pages' CSP allows no eval of their own).
  const context = { include: include ? [include] : [], exclude: [] };
  type Outcome = { missing: true } | { error: string } | { error: null; violations: Violations };
  const run = (): Promise<Outcome> =>
    page.evaluate(async ({ context, options }): Promise<Outcome> => {
      const inPage = (window as unknown as { axe?: typeof axe }).axe;
      if (typeof inPage?.run !== 'function') return { missing: true };
      try {
        return { error: null, violations: (await inPage.run(context, options)).violations as Violations };
      } catch (err) {
        return { error: (err as Error).message };
      }
    }, { context, options });
  let outcome = await run();
  if ('missing' in outcome) {
    await page.evaluate(axe.source);
    await page.evaluate(CONFIGURE);
    outcome = await run();
  }
  if ('missing' in outcome) throw new Error('axe-core is not in the page');
  if (outcome.error !== null) throw new Error(outcome.error);
  return outcome.violations;
}
