import { STATUS_CODES } from 'node:http';
import { type JsonSchema, type OpenApiDocument, type ReferenceOperation, type ReferenceTag, refName, referenceTags } from './document';
import { renderPage } from './layout';
import { isPaging, ListAnswer, listedItems, ListsSection, LISTS_ID, PagingParameters, ShortListNote, shortListExample } from './lists';
import { inline, Prose } from './prose';
import { Field, Fields, type SchemaContext, SchemaView, schemaId } from './schema';

// The API reference: every operation of the OpenAPI document with its parameters, body,
// answers and an example, grouped by tag; then the objects the answers share and the
// problem types. Plain HTML: readable and linkable without JavaScript.

export interface ProblemType {
  /** Its anchor on the errors page. */
  name: string;
  type: string;
  status: number;
  title: string;
}

export interface ReferenceAssets {
  styles: string[];
  scripts: string[];
}

/** Anchors: kept from the Redoc page where it had them (`operation/<operationId>`). */
const operationId = (op: { operationId: string }) => `operation/${op.operationId}`;
const tagId = (tag: string) => `tag/${tag.replace(/\s+/g, '-')}`;
const errorId = (status: string) => `error/${status}`;
const parameterId = (name: string) => `parameter/${name}`;
/** `urn:problem:payment-declined` → `problem/payment-declined`. */
const problemId = (type: string) => `problem/${type.slice(type.lastIndexOf(':') + 1)}`;

const statusLine = (status: string) => `${status} ${STATUS_CODES[Number(status)] ?? ''}`.trim();
const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Every component schema a `$ref` reaches from these schemas, transitively. */
function referenced(roots: (JsonSchema | undefined)[], schemas: Record<string, JsonSchema>): Set<string> {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const ref = (value as JsonSchema).$ref;
    if (typeof ref === 'string' && !found.has(refName(ref))) {
      found.add(refName(ref));
      walk(schemas[refName(ref)]);
    }
    Object.values(value).forEach(walk);
  };
  roots.forEach(walk);
  return found;
}

function Example({ op, base, linked }: { op: ReferenceOperation; base: string; linked: SchemaContext }) {
  const body = op.requestBody;
  const listed = listedItems(op.success?.schema);
  const shortList = listed ? shortListExample(op.success?.example) : null;
  const request = [
    `${op.method.toUpperCase()} ${base}${op.path}`,
    'Authorization: AppKeys <public_key>:<secret_key>',
    ...(body?.mediaType && body.example !== undefined ? [`Content-Type: ${body.mediaType}`, '', json(body.example)] : []),
  ].join('\n');
  const success = op.success;
  const response = success
    ? [
        statusLine(success.status),
        ...(success.mediaType ? [`Content-Type: ${success.mediaType}`] : []),
        ...(success.example !== undefined ? ['', json(shortList ?? success.example)] : []),
      ].join('\n')
    : undefined;
  // Focusable: a block that scrolls sideways must be reachable from the keyboard.
  return (
    <>
      <h4>Example</h4>
      <pre tabIndex={0} aria-label={`Example request of ${op.operationId}`}>
        {request}
      </pre>
      {listed && shortList ? <ShortListNote items={listed} context={linked} /> : null}
      {response ? (
        <pre tabIndex={0} aria-label={`Example response of ${op.operationId}`}>
          {response}
        </pre>
      ) : null}
    </>
  );
}

interface OperationProps {
  op: ReferenceOperation;
  base: string;
  schemas: Record<string, JsonSchema>;
  printed: SchemaContext['printed'];
  /** Shared parameters every operation takes: named once at the top, not in each operation. */
  everywhere: Set<string>;
}

function Operation({ op, base, schemas, printed, everywhere }: OperationProps) {
  const inPlace: SchemaContext = { schemas, linkRefs: false, printed };
  const linked: SchemaContext = { schemas, linkRefs: true, printed };
  const { requestBody: body, success } = op;
  const parameters = op.parameters.filter((p) => (!p.shared || !everywhere.has(p.shared)) && !isPaging(p));
  const paged = op.parameters.some(isPaging);
  const listed = listedItems(success?.schema);
  return (
    <section class="operation" id={operationId(op)}>
      <h3>{inline(op.summary)}</h3>
      <p class="endpoint">
        <span class={`method ${op.method}`}>{op.method.toUpperCase()}</span> <code>{`${base}${op.path}`}</code>
      </p>
      <Prose text={op.description} />
      {parameters.length || paged ? (
        <>
          <h4>Parameters</h4>
          <ul class="fields">
            {paged ? <PagingParameters /> : null}
            {parameters.map((p) =>
              p.shared ? (
                <li>
                  <code class="name">{p.name}</code> ({p.in}): <a href={`#${parameterId(p.shared)}`}>described under Shared parameters</a>
                </li>
              ) : (
                <Field name={p.name} where={p.in} schema={{ ...p.schema, description: p.description }} required={p.required ?? false} depth={0} context={inPlace} />
              ),
            )}
          </ul>
        </>
      ) : null}
      {body ? (
        <>
          <h4>Request body</h4>
          <p>
            <code>{body.mediaType}</code>
            {body.required ? ', required' : ', optional (an empty body is read as {})'}
          </p>
          {body.schema ? <SchemaView schema={body.schema} context={inPlace} /> : null}
        </>
      ) : null}
      <h4>Responses</h4>
      {success ? (
        <>
          <p>
            <strong>{statusLine(success.status)}</strong>: {inline(success.description)}
            {success.mediaType ? (
              <>
                {' '}
                (<code>{success.mediaType}</code>)
              </>
            ) : null}
          </p>
          {listed ? <ListAnswer items={listed} context={linked} /> : success.schema ? <SchemaView schema={success.schema} context={linked} /> : null}
        </>
      ) : null}
      <p class="errors">
        Errors: {op.errors.map((e) => e.status).join(', ')} (<a href="#error-answers">what each means</a>)
      </p>
      <Example op={op} base={base} linked={linked} />
    </section>
  );
}

function Nav({ tags, schemaNames }: { tags: ReferenceTag[]; schemaNames: string[] }) {
  return (
    <>
      <p class="nav-title">
        <a href="#top">Payment Service API</a>
      </p>
      <ul class="toc">
        {tags.map((tag) => (
          <li>
            <a href={`#${tagId(tag.name)}`}>{tag.name}</a>
            <ul>
              {tag.operations.map((op) => (
                <li>
                  <a href={`#${operationId(op)}`}>
                    <span class={`method ${op.method}`}>{op.method.toUpperCase()}</span> {inline(op.summary)}
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
        <li>
          <a href="#schemas">Objects</a>
          <ul>
            {schemaNames.map((name) => (
              <li>
                <a href={`#${schemaId(name)}`}>{name}</a>
              </li>
            ))}
          </ul>
        </li>
        <li>
          <a href={`#${LISTS_ID}`}>Lists</a>
        </li>
        <li>
          <a href="#parameters">Shared parameters</a>
        </li>
        <li>
          <a href="#errors">Errors</a>
        </li>
      </ul>
    </>
  );
}

function Errors({ doc, problems }: { doc: OpenApiDocument; problems: ProblemType[] }) {
  const problem = doc.components.schemas.Problem;
  return (
    <section id="errors">
      <h2>Errors</h2>
      <p>
        Every error answer is a problem details object (RFC 9457), <code>application/problem+json</code>, with the <code>X-Request-Id</code> of
        the request. Its <code>type</code> says what went wrong; the same type always has the same status and title. What causes each type and
        what to do: <a href="/docs/errors">Errors</a>, where each problem's <code>doc_url</code> points.
      </p>
      {problem ? (
        <section id={schemaId('Problem')}>
          <h3>Problem</h3>
          <Prose text={problem.description} />
          <Fields schema={problem} depth={0} context={{ schemas: doc.components.schemas, linkRefs: true }} />
        </section>
      ) : null}
      <section id="problem-types">
        <h3>Problem types</h3>
        <div class="table" tabIndex={0} role="region" aria-label="Problem types">
          <table>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Title</th>
              </tr>
            </thead>
            <tbody>
              {problems.map((p) => (
                <tr id={problemId(p.type)}>
                  <td>
                    <a href={`/docs/errors#${p.name}`}>
                      <code>{p.type}</code>
                    </a>
                  </td>
                  <td>{p.status}</td>
                  <td>{p.title}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section id="error-answers">
        <h3>Error answers</h3>
        <dl class="answers">
          {Object.entries(doc.components.responses).flatMap(([name, response]) => {
            const example = Object.values(response.content ?? {})[0]?.example as { status?: number } | undefined;
            const status = String(example?.status ?? name);
            return [
              <dt id={errorId(status)}>
                {statusLine(status)} <span class="type">{name}</span>
              </dt>,
              <dd>{inline(response.description)}</dd>,
            ];
          })}
        </dl>
      </section>
    </section>
  );
}

/** What the page is made of, worked out from the document once. */
function outline(doc: OpenApiDocument) {
  const tags = referenceTags(doc);
  const schemas = doc.components.schemas;
  const base = new URL(doc.servers[0]?.url ?? '/', 'http://localhost').pathname.replace(/\/$/, '');
  // The objects answers link to get a section of their own; request bodies are shown in place.
  const shared = [...referenced(tags.flatMap((t) => t.operations.map((op) => op.success?.schema)), schemas)].filter((n) => n !== 'Problem');
  const operations = tags.flatMap((t) => t.operations);
  const everywhere = new Set(Object.keys(doc.components.parameters).filter((name) => operations.every((op) => op.parameters.some((p) => p.shared === name))));
  return { tags, shared, base, schemas, everywhere };
}

export function renderReference(doc: OpenApiDocument, problems: ProblemType[], assets: ReferenceAssets): string {
  const { tags, shared, base, schemas, everywhere } = outline(doc);
  // One page-wide record of the long value lists printed, shared by every section.
  const printed: SchemaContext['printed'] = [];
  const linked: SchemaContext = { schemas, linkRefs: true, printed };
  return renderPage({
    title: `${doc.info.title} · Reference`,
    navLabel: 'Contents',
    nav: <Nav tags={tags} schemaNames={shared} />,
    ...assets,
    children: (
      <>
        <header id="top">
          {/* `elementtiming`: npm run bench reads when the heading is painted (test/bench/docs.ts). */}
          <h1 elementtiming="heading">
            {doc.info.title} <span class="version">{doc.info.version}</span>
          </h1>
          <Prose text={doc.info.description} />
          <p>
            Every path starts with <code>{base || '/'}</code> on this service's origin. The contract itself, generated from the same
            declarations: <a href={`${base}/openapi.json`}>{`${base}/openapi.json`}</a> (OpenAPI {doc.openapi}).
          </p>
          {Object.entries(doc.components.securitySchemes).map(([name, scheme]) => (
            <p>
              Authentication (<code>{name}</code>): {inline(scheme.description ?? scheme.type)}.
            </p>
          ))}
          {everywhere.size ? (
            <p>
              Every operation also takes{' '}
              {[...everywhere].map((name, i) => [
                i ? ', ' : '',
                <a href={`#${parameterId(name)}`}>
                  <code>{doc.components.parameters[name]!.name}</code> ({doc.components.parameters[name]!.in})
                </a>,
              ])}
              , described under Shared parameters and not repeated in each operation.
            </p>
          ) : null}
        </header>
        {tags.map((tag) => (
          <section id={tagId(tag.name)}>
            <h2>{tag.name}</h2>
            <Prose text={tag.description} />
            {tag.operations.map((op) => (
              <Operation op={op} base={base} schemas={schemas} printed={printed} everywhere={everywhere} />
            ))}
          </section>
        ))}
        <section id="schemas">
          <h2>Objects</h2>
          <p>The objects the answers return, each described once.</p>
          {shared.map((name) => (
            <section id={schemaId(name)}>
              <h3>{name}</h3>
              <Prose text={schemas[name]!.description} />
              <Fields schema={schemas[name]!} depth={0} context={linked} />
            </section>
          ))}
        </section>
        <ListsSection operations={tags.flatMap((t) => t.operations)} context={linked} />
        <section id="parameters">
          <h2>Shared parameters</h2>
          {Object.entries(doc.components.parameters).map(([name, p]) => (
            <section id={parameterId(name)}>
              <h3>{name}</h3>
              <ul class="fields">
                <Field name={p.name} where={p.in} schema={{ ...p.schema, description: p.description }} required={p.required ?? false} depth={0} context={linked} />
              </ul>
            </section>
          ))}
        </section>
        <Errors doc={doc} problems={problems} />
      </>
    ),
  });
}
