import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

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
//
// On /docs/ (6,000 elements) a run went from 16–17 s to 6–7 s of a quiet core's time.

export type Violations = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'];

export async function axeViolations(page: Page, include?: string): Promise<Violations> {
  const builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] });
  if (include) builder.include(include);
  if (page.frames().length === 1) builder.setLegacyMode();
  return (await builder.analyze()).violations;
}
