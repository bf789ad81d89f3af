import { renderPage } from './layout';
import { inline } from './prose';
import type { ReferenceAssets } from './reference';

// The errors page at /docs/errors: one section per problem type, anchored by the type's
// name (`#payment-declined`), saying what causes it and what to do. Every problem body's
// `doc_url` points at one of these sections; the `type` URNs stay what merchants match on.

export interface ExplainedProblem {
  name: string;
  type: string;
  status: number;
  title: string;
  cause: string;
  action: string;
}

function Nav({ problems }: { problems: ExplainedProblem[] }) {
  return (
    <>
      <p class="nav-title">
        <a href="/docs/">Payment Service API</a>
      </p>
      <ul class="toc">
        <li>
          <a href="#top">Errors</a>
          <ul>
            {problems.map((p) => (
              <li>
                <a href={`#${p.name}`}>
                  {p.status} {p.title}
                </a>
              </li>
            ))}
          </ul>
        </li>
      </ul>
    </>
  );
}

export function renderErrors(problems: ExplainedProblem[], assets: ReferenceAssets): string {
  return renderPage({
    title: 'Payment Service API · Errors',
    navLabel: 'Contents',
    nav: <Nav problems={problems} />,
    ...assets,
    children: (
      <>
        <header id="top">
          <h1>Errors</h1>
          <p>
            Every error answer of the API is a problem details object (RFC 9457), <code>application/problem+json</code>. Match on its{' '}
            <code>type</code>; its <code>doc_url</code> links to the section below that explains it, and its <code>request_id</code> is the one
            to quote when you ask us about a request. The fields of a problem are in the <a href="/docs/#schema/Problem">reference</a>.
          </p>
        </header>
        {problems.map((p) => (
          <section id={p.name} class="problem">
            <h2>
              {p.status} {p.title}
            </h2>
            <p>
              Type: <code>{p.type}</code>
            </p>
            <h3>What caused it</h3>
            <p>{inline(p.cause)}</p>
            <h3>What to do</h3>
            <p>{inline(p.action)}</p>
          </section>
        ))}
      </>
    ),
  });
}
