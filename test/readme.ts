import { readFileSync } from 'node:fs';

// The fenced code blocks of README.md (or of another Markdown file of the repository, by its
// path from the root), by their language, in order: the tests run or type-check them as a
// reader copies them (test/api/readme.test.ts, test/api/sdk-readme.test.ts,
// test/e2e/widget.spec.ts).

export function readmeBlocks(language: string, file = 'README.md'): string[] {
  const readme = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  return [...readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(([, lang]) => lang === language).map(([, , body]) => body!);
}

/** The one block of a language that contains `marker`; throws unless there is exactly one. */
export function readmeBlock(language: string, marker: string, file = 'README.md'): string {
  const found = readmeBlocks(language, file).filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${file} has ${found.length} \`${language}\` blocks with ${JSON.stringify(marker)}`);
  return found[0]!;
}
