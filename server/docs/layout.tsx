import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';

// The shell of every page under /docs/: a skip link, a sidebar of contents, the content,
// one stylesheet and deferred scripts, all from this origin. The reference is its first
// page; the guides of docs/ and the error pages can be rendered in the same shell.

export interface PageProps {
  title: string;
  /** The sidebar's links. */
  nav: ComponentChildren;
  /** Its accessible name ("Contents"). */
  navLabel: string;
  styles: string[];
  /** Run after the document is parsed (`defer`): the content never waits for them. */
  scripts: string[];
  children: ComponentChildren;
}

function Page({ title, nav, navLabel, styles, scripts, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{title}</title>
        <link rel="icon" href="data:," />
        {styles.map((href) => (
          <link rel="stylesheet" href={href} />
        ))}
        {scripts.map((src) => (
          <script src={src} defer />
        ))}
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <div class="page">
          <nav class="sidebar" id="contents" aria-label={navLabel}>
            {nav}
          </nav>
          <main id="content" tabIndex={-1}>
            {children}
          </main>
        </div>
      </body>
    </html>
  );
}

/** The complete HTML document. Preact escapes every text and attribute. */
export function renderPage(props: PageProps): string {
  return `<!doctype html>${renderToString(<Page {...props} />)}`;
}
