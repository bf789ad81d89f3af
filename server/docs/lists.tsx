import type { JsonSchema, OperationParameter, ReferenceOperation } from './document';
import { Field, type SchemaContext, typeLabel } from './schema';

// Every list answer is the same envelope (count, items_per_page, next, previous around its
// results) and takes the same two query parameters (page, page_size). The reference
// describes them once, in its Lists section, and a list operation names what it lists: the
// page had those six fields and their descriptions 25 times each.

export const LISTS_ID = 'lists';
const ENVELOPE = ['count', 'items_per_page', 'next', 'previous', 'results'];
const PAGING = ['page', 'page_size'];

/** What a list answer's `results` hold, when `schema` is the list envelope. */
export function listedItems(schema: JsonSchema | undefined): JsonSchema | undefined {
  const names = Object.keys(schema?.properties ?? {}).sort();
  if (names.length !== ENVELOPE.length || names.some((n, i) => n !== ENVELOPE[i])) return undefined;
  return schema!.properties!.results!.items;
}

export const isPaging = (p: OperationParameter) => p.in === 'query' && !p.shared && PAGING.includes(p.name);

/** A list operation's answer: its results' type, the envelope by reference. */
export function ListAnswer({ items, context }: { items: JsonSchema; context: SchemaContext }) {
  return (
    <p>
      A <a href={`#${LISTS_ID}`}>list page</a> whose <code>results</code> are {typeLabel(items, context)}
    </p>
  );
}

/** A list operation's page and page_size, by reference. */
export function PagingParameters() {
  return (
    <li>
      <code class="name">page</code>, <code class="name">page_size</code> (query): <a href={`#${LISTS_ID}`}>as every list</a>
    </li>
  );
}

/** The Lists section: the envelope's fields and the paging parameters, from the first list operation. */
export function ListsSection({ operations, context }: { operations: ReferenceOperation[]; context: SchemaContext }) {
  const first = operations.find((op) => listedItems(op.success?.schema));
  if (!first) return null;
  const envelope = first.success!.schema!;
  const required = new Set(envelope.required ?? []);
  return (
    <section id={LISTS_ID}>
      <h2>Lists</h2>
      <p>
        Every list answer is a page of objects, newest first unless its operation says otherwise, in this envelope; every list takes the same two
        query parameters.
      </p>
      <ul class="fields">
        {Object.entries(envelope.properties!).map(([name, schema]) =>
          name === 'results' ? (
            <li>
              <code class="name">results</code> (required · array): the objects of this page, of the type each list operation names
            </li>
          ) : (
            <Field name={name} schema={schema} required={required.has(name)} depth={0} context={context} />
          ),
        )}
        {first.parameters.filter(isPaging).map((p) => (
          <Field name={p.name} where={p.in} schema={{ ...p.schema, description: p.description }} required={p.required ?? false} depth={0} context={context} />
        ))}
      </ul>
    </section>
  );
}

/** Fields of each result an example list answer keeps: a whole one is its object's example. */
const EXAMPLE_FIELDS = 3;

/**
 * A list answer's example with each result cut to its first fields, or null when `example`
 * is not a list page: the objects are whole under their own operations' examples, and 24
 * lists of whole objects were a sixth of the reference's bytes.
 */
export function shortListExample(example: unknown): unknown {
  const page = example as { results?: unknown } | null;
  if (!page || typeof page !== 'object' || !Array.isArray(page.results)) return null;
  const cut = (item: unknown) => (item && typeof item === 'object' ? Object.fromEntries(Object.entries(item).slice(0, EXAMPLE_FIELDS)) : item);
  return { ...page, results: page.results.map(cut) };
}

/** Says that the example below cuts its results, and where a whole one is. */
export function ShortListNote({ items, context }: { items: JsonSchema; context: SchemaContext }) {
  return (
    <p>
      The example's results show their first {EXAMPLE_FIELDS} fields; each is a whole {typeLabel(items, context)}.
    </p>
  );
}
