import type { ComponentChildren } from 'preact';
import { FREE_TEXT, NO_ANGLE_BRACKETS, NOT_BLANK, SINGLE_LINE } from '../../widget/fields/text';
import { UUID_PATTERN } from '../domain/ids';
import { type JsonSchema, refName } from './document';
import { inline } from './prose';

// A JSON Schema as a compact list of fields, one item of text each: name, whether it is
// required, type, limits, description and enum values, in two or three elements (the
// browser, and axe in the tests, pay per element). Nested objects (also inside arrays and
// nullable unions) open in a <details> below their field, down to MAX_DEPTH levels. No
// syntax highlighting, no per-character markup.

export interface SchemaContext {
  /** The document's component schemas, for `$ref`s rendered in place. */
  schemas: Record<string, JsonSchema>;
  /**
   * Whether a `$ref` is a link to the schema's own section (`#schema/Name`) instead of its
   * fields in place: answers share a few objects, which the page describes once.
   */
  linkRefs: boolean;
  /**
   * Long value lists already printed on the page, by their values, with the anchor and the
   * field of their first printing: the 67 event types appear in five places, and printing
   * them once keeps the page within its bytes (test/bench/docs.ts).
   */
  printed?: PrintedList[];
}

/** Value lists at least this long are printed once per page and linked to after that. */
export const LONG_LIST = 20;

/** Levels of nested objects shown below a field; deeper ones show their type only. */
export const MAX_DEPTH = 4;

/** `#schema/Name`: the anchor of a component schema's section. */
export const schemaId = (name: string) => `schema/${name}`;

const isNull = (s: JsonSchema) => s.type === 'null';

/** The union's members but `null`. */
const variantsOf = (s: JsonSchema) => (s.anyOf ?? s.oneOf ?? []).filter((v) => !isNull(v));

function resolve(s: JsonSchema, context: SchemaContext): JsonSchema {
  if (!s.$ref || context.linkRefs) return s;
  const target = context.schemas[refName(s.$ref)];
  if (!target) throw new Error(`unresolved schema ${s.$ref}`);
  return target;
}

/** An object's fields, with those of its `allOf` members. */
function fieldsOf(s: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const parts = [s, ...(s.allOf ?? [])];
  return {
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})) as Record<string, JsonSchema>,
    required: new Set(parts.flatMap((p) => p.required ?? [])),
  };
}

const hasFields = (s: JsonSchema) => Object.keys(fieldsOf(s).properties).length > 0;

function join(parts: ComponentChildren[], separator: string): ComponentChildren[] {
  return parts.flatMap((part, i) => (i ? [separator, part] : [part]));
}

/** `string (date-time)`, `array of Transaction`, `integer or null`, `map of string`. */
export function typeLabel(s: JsonSchema, context: SchemaContext): ComponentChildren {
  if (s.$ref) {
    const name = refName(s.$ref);
    return context.linkRefs ? <a href={`#${schemaId(name)}`}>{name}</a> : name;
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  const union = s.anyOf ?? s.oneOf;
  if (union) return join(union.map((v) => typeLabel(v, context)), ' or ');
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (!types.length) return s.enum?.length ? typeof s.enum[0] : hasFields(s) ? 'object' : 'any';
  return join(
    types.map((type): ComponentChildren => {
      if (type === 'array') return s.items ? ['array of ', typeLabel(s.items, context)] : 'array';
      if (type === 'object' && !hasFields(s) && typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length) {
        return ['map of ', typeLabel(s.additionalProperties, context)];
      }
      return s.format ? `${type} (${s.format})` : type;
    }),
    ' or ',
  );
}

const range = (min: number | undefined, max: number | undefined, unit: string) =>
  min !== undefined && max !== undefined ? `${min}–${max} ${unit}` : max !== undefined ? `at most ${max} ${unit}` : min ? `at least ${min} ${unit}` : '';

/**
 * The service's own text rules in words: a reader cannot check a 60-character pattern by
 * eye (and the page carried the single-line one 67 times). Any other pattern is shown as
 * it is; the document keeps the patterns themselves.
 */
const PATTERN_WORDS = new Map([
  [SINGLE_LINE.source, 'one line, no control characters'],
  [FREE_TEXT.source, 'no control characters but tab and line breaks'],
  [UUID_PATTERN.source, 'a UUID'],
  [NOT_BLANK.source, 'not blank'],
  [NO_ANGLE_BRACKETS.source, 'no < or >'],
]);

/** Limits in words; the safe-integer bounds zod writes on every integer say nothing. */
export function limits(s: JsonSchema): string {
  const bound = (n: number | undefined) => (n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n);
  const min = bound(s.minimum);
  const max = bound(s.maximum);
  const exclusiveMin = bound(s.exclusiveMinimum);
  const exclusiveMax = bound(s.exclusiveMaximum);
  const patterns = [s.pattern, ...(s.allOf ?? []).map((p) => p.pattern)].filter((p): p is string => !!p);
  return [
    min !== undefined ? `≥ ${min}` : '',
    exclusiveMin !== undefined ? `> ${exclusiveMin}` : '',
    max !== undefined ? `≤ ${max}` : '',
    exclusiveMax !== undefined ? `< ${exclusiveMax}` : '',
    range(s.minLength, s.maxLength, 'characters'),
    range(s.minItems, s.maxItems, 'items'),
    s.minProperties ? `at least ${s.minProperties} field${s.minProperties === 1 ? '' : 's'}` : '',
    // A format (date-time, uuid) already says what its generated pattern spells out.
    ...(s.format ? [] : patterns.map((p) => PATTERN_WORDS.get(p) ?? `matches ${p}`)),
  ]
    .filter(Boolean)
    .join(', ');
}

/** The enum values of a field, of its one non-null variant, or of its array's items. */
export function enumOf(s: JsonSchema): unknown[] | undefined {
  if (s.enum) return s.enum;
  const variants = variantsOf(s);
  if (variants.length === 1) return enumOf(variants[0]!);
  return s.items ? enumOf(s.items) : undefined;
}

/** The objects to list below a field: itself, its array's items, its union's members. */
function nestedObjects(s: JsonSchema, context: SchemaContext): JsonSchema[] {
  const resolved = resolve(s, context);
  if (resolved.$ref) return [];
  if (hasFields(resolved)) return [resolved];
  if (resolved.items) return nestedObjects(resolved.items, context);
  return variantsOf(resolved).flatMap((v) => nestedObjects(v, context));
}

interface FieldProps {
  name: string;
  /** A parameter's place: path, query or header. */
  where?: string;
  schema: JsonSchema;
  required: boolean;
  depth: number;
  context: SchemaContext;
}

/** A long value list printed on the page: its values, its anchor and the field it was printed under. */
interface PrintedList {
  values: Set<string>;
  id: string;
  field: string;
}

const valueText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Enum values in one code span: one element however many values. A long list the page has
 * printed before is a link to it instead, with the values it adds (`*` beside the event
 * types) after it.
 */
function EnumValues({ values, field, context }: { values: unknown[]; field: string; context: SchemaContext }) {
  const texts = values.map(valueText);
  const printed = texts.length >= LONG_LIST ? context.printed : undefined;
  if (!printed) return <code>{texts.join(' | ')}</code>;
  const first = printed.find((p) => [...p.values].every((v) => texts.includes(v)) && texts.length - p.values.size < LONG_LIST);
  if (first) {
    const extra = texts.filter((v) => !first.values.has(v));
    return (
      <>
        the {first.values.size} values <a href={`#${first.id}`}>listed under {first.field}</a>
        {extra.length ? <>, or <code>{extra.join(' | ')}</code></> : null}
      </>
    );
  }
  const id = `values-${printed.length + 1}`;
  printed.push({ values: new Set(texts), id, field });
  return <code id={id}>{texts.join(' | ')}</code>;
}

export function Field({ name, where, schema, required, depth, context }: FieldProps) {
  const values = enumOf(schema);
  const limit = limits(schema);
  const nested = depth < MAX_DEPTH ? nestedObjects(schema, context) : [];
  return (
    <li>
      <code class="name">{name}</code> ({required ? 'required · ' : ''}
      {where ? `${where} · ` : ''}
      {typeLabel(schema, context)}
      {limit ? ` · ${limit}` : ''})
      {schema.description ? [': ', ...inline(schema.description)] : null}
      {values?.length ? [schema.description ? '. One of: ' : ': one of ', <EnumValues values={values} field={name} context={context} />] : null}
      {nested.map((object, i) => (
        <details>
          <summary>
            Fields of {name}
            {nested.length > 1 ? ` (variant ${i + 1})` : ''}
          </summary>
          <Fields schema={object} depth={depth + 1} context={context} />
        </details>
      ))}
    </li>
  );
}

export function Fields({ schema, depth, context }: { schema: JsonSchema; depth: number; context: SchemaContext }) {
  const { properties, required } = fieldsOf(schema);
  return (
    <ul class="fields">
      {Object.entries(properties).map(([name, property]) => (
        <Field name={name} schema={property} required={required.has(name)} depth={depth} context={context} />
      ))}
    </ul>
  );
}

/** A body or an answer: its fields when it is an object, else its type (a link for a shared schema). */
export function SchemaView({ schema, context }: { schema: JsonSchema; context: SchemaContext }) {
  const resolved = resolve(schema, context);
  if (!resolved.$ref && hasFields(resolved)) return <Fields schema={resolved} depth={0} context={context} />;
  const values = enumOf(resolved);
  return (
    <p>
      <span class="type">{typeLabel(resolved, context)}</span>
      {values?.length ? <> · one of <EnumValues values={values} field="this answer" context={context} /></> : null}
    </p>
  );
}
