import type { ComponentChildren } from 'preact';

// The document's descriptions are short texts with `code` spans, written for Markdown
// readers (Redocly, Spectral, generated clients). The page renders exactly that much:
// backticks become <code>, everything else stays text, which Preact escapes.

/** `a \`b\` c` → ['a ', <code>b</code>, ' c']. */
export function inline(text: string): ComponentChildren[] {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code>{part}</code> : part));
}

/** A description as a paragraph, or nothing when there is none. */
export function Prose({ text }: { text: string | undefined }) {
  return text ? <p>{inline(text)}</p> : null;
}
