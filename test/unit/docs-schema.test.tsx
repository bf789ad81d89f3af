import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/api/index';
import { type JsonSchema, OpenApiDocument, referenceTags } from '../../server/docs/document';
import { renderErrors } from '../../server/docs/errors';
import { listedItems } from '../../server/docs/lists';
import { renderReference } from '../../server/docs/reference';
import { enumOf, LONG_LIST, limits, MAX_DEPTH, type SchemaContext, SchemaView, typeLabel } from '../../server/docs/schema';
import { PROBLEM_CATALOGUE, problemDocUrl } from '../../server/http/problem';
import { NOT_BLANK, SINGLE_LINE } from '../../widget/fields/text';

// How the reference renders schemas (server/docs/schema.tsx), on hand-written schemas of
// the shapes the generated document uses, and the whole page from the real document.

const inPlace: SchemaContext = { schemas: { Money: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } }, linkRefs: false };
const linked: SchemaContext = { ...inPlace, linkRefs: true };
const html = (schema: JsonSchema, context = inPlace) => renderToString(<SchemaView schema={schema} context={context} />);
const label = (schema: JsonSchema, context = inPlace) => renderToString(<>{typeLabel(schema, context)}</>);
/** Text without tags, as a reader sees it. */
const text = (markup: string) => markup.replace(/<[^>]*>/g, '').replace(/&amp;/g, '&');

describe('typeLabel', () => {
  it('names formats, arrays, nullable unions and maps', () => {
    expect(label({ type: 'string', format: 'date-time' })).toBe('string (date-time)');
    expect(label({ type: 'array', items: { type: 'integer' } })).toBe('array of integer');
    expect(label({ anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] })).toBe('string (uri) or null');
    expect(label({ type: ['string', 'null'] })).toBe('string or null');
    expect(label({ type: 'object', additionalProperties: { type: 'string' } })).toBe('map of string');
    expect(label({ type: 'object', additionalProperties: {} })).toBe('object');
  });

  it('links a shared schema to its section, or names it when shown in place', () => {
    expect(label({ type: 'array', items: { $ref: '#/components/schemas/Money' } }, linked)).toBe('array of <a href="#schema/Money">Money</a>');
    expect(label({ $ref: '#/components/schemas/Money' })).toBe('Money');
  });
});

describe('limits and enums', () => {
  it('states bounds in words and leaves out the safe-integer bounds zod writes', () => {
    expect(limits({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 })).toBe('');
    expect(limits({ type: 'number', exclusiveMinimum: 0, maximum: 1000 })).toBe('> 0, ≤ 1000');
    expect(limits({ type: 'string', minLength: 1, maxLength: 255 })).toBe('1–255 characters');
    expect(limits({ type: 'array', minItems: 1, maxItems: 1000 })).toBe('1–1000 items');
    expect(limits({ type: 'string', pattern: '^[A-Z]{3}$' })).toBe('matches ^[A-Z]{3}$');
    // The service's own text rules in words; other patterns as they are.
    expect(limits({ type: 'string', maxLength: 255, pattern: SINGLE_LINE.source })).toBe('at most 255 characters, one line, no control characters');
    expect(limits({ type: 'string', pattern: NOT_BLANK.source })).toBe('not blank');
    // A format already says it; the generated date-time pattern would be noise.
    expect(limits({ type: 'string', format: 'date-time', pattern: '^\\d{4}-…$' })).toBe('');
  });

  it('finds enum values on the field, its one non-null variant or its items', () => {
    expect(enumOf({ type: 'string', enum: ['N', 'C'] })).toEqual(['N', 'C']);
    expect(enumOf({ anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] })).toEqual(['a', 'b']);
    expect(enumOf({ type: 'array', items: { type: 'string', enum: ['x'] } })).toEqual(['x']);
    expect(enumOf({ type: 'string' })).toBeUndefined();
  });
});

describe('SchemaView', () => {
  const order: JsonSchema = {
    type: 'object',
    required: ['status', 'lines'],
    properties: {
      status: { type: 'string', enum: ['open', 'paid'], description: 'Where the `order` is' },
      lines: { type: 'array', items: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', description: 'How many' } } } },
      card: { anyOf: [{ type: 'object', properties: { last4: { type: 'string' } } }, { type: 'null' }] },
      price: { $ref: '#/components/schemas/Money' },
    },
  };

  it('lists each field with its type, whether required, its description and enum values', () => {
    const out = html(order);
    expect(text(out)).toContain('status (required · string): Where the order is. One of: open | paid');
    expect(out).toContain('<code>order</code>');
    expect(text(out)).toContain('lines (required · array of object)');
    expect(text(out)).toContain('card (object or null)');
  });

  it('opens nested objects (array items, nullable unions, schemas shown in place) in <details>', () => {
    const out = html(order);
    expect(out.match(/<details>/g)).toHaveLength(3);
    expect(text(out)).toContain('Fields of linesqty (required · integer): How many');
    expect(text(out)).toContain('Fields of cardlast4 (string)');
    expect(text(out)).toContain('Fields of priceamount (required · number)');
  });

  it('links a shared schema instead of repeating it', () => {
    const out = html(order, linked);
    expect(out).toContain('<a href="#schema/Money">Money</a>');
    expect(out.match(/<details>/g)).toHaveLength(2);
  });

  it(`stops nesting after ${MAX_DEPTH} levels`, () => {
    let deep: JsonSchema = { type: 'object', properties: { leaf: { type: 'string' } } };
    for (let i = 0; i < MAX_DEPTH + 2; i++) deep = { type: 'object', properties: { [`level${i}`]: deep } };
    expect(html(deep).match(/<details>/g)).toHaveLength(MAX_DEPTH);
  });

  it('escapes what the document says (Preact does): a description cannot add markup', () => {
    const out = html({ type: 'object', properties: { x: { type: 'string', description: '<img src=x onerror=alert(1)> & `<b>`' } } });
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x onerror=alert(1)> &amp; <code>&lt;b></code>');
  });
});

describe('long value lists', () => {
  const values = Array.from({ length: LONG_LIST }, (_, i) => `v${i}`);
  const field = (name: string, list: string[]) => ({ [name]: { type: 'string', enum: list } });
  const twice: JsonSchema = { type: 'object', properties: { ...field('kind', values), ...field('kinds', [...values, '*']), ...field('short', ['a', 'b']) } };

  it('are printed once a page; later the field links to them, with what it adds', () => {
    const out = html(twice, { ...inPlace, printed: [] });
    expect(out.match(/v0 \| v1/g)).toHaveLength(1);
    expect(out).toContain('<code id="values-1">');
    expect(text(out)).toContain(`kinds (string): one of the ${LONG_LIST} values listed under kind, or *`);
    expect(out).toContain('<a href="#values-1">');
  });

  it('are printed whole where the page keeps no record, and a short list always is', () => {
    expect(html(twice).match(/v0 \| v1/g)).toHaveLength(2);
    expect(text(html(twice, { ...inPlace, printed: [] }))).toContain('one of a | b');
  });
});

describe('the reference from the service document', () => {
  const doc = OpenApiDocument.parse(openApiDocument());
  const page = renderReference(doc, PROBLEM_CATALOGUE, { styles: ['/docs/docs.css'], scripts: ['/docs/docs.js'] });

  it('has a section and a sidebar link per operation, once each', () => {
    const operations = referenceTags(doc).flatMap((t) => t.operations);
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      expect(page.split(`id="operation/${op.operationId}"`)).toHaveLength(2);
      expect(page.split(`href="#operation/${op.operationId}"`)).toHaveLength(2);
    }
  });

  it('has every problem type and an anchor for each error status an operation names', () => {
    for (const p of PROBLEM_CATALOGUE) expect(page).toContain(`<code>${p.type}</code>`);
    const statuses = new Set(referenceTags(doc).flatMap((t) => t.operations.flatMap((op) => op.errors.map((e) => e.status))));
    for (const status of statuses) expect(page).toContain(`id="error/${status}"`);
  });

  it('has every anchor it links to, and no id twice', () => {
    const ids = [...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [, target] of page.matchAll(/href="#([^"]+)"/g)) expect(ids, target).toContain(target);
  });

  it('describes the list envelope and the paging parameters once, and every list links there', () => {
    expect(page.split('Page number, from 1; default 1')).toHaveLength(2);
    const lists = referenceTags(doc).flatMap((t) => t.operations).filter((op) => listedItems(op.success?.schema));
    expect(lists.length).toBeGreaterThan(20);
    for (const op of lists) {
      const section = page.slice(page.indexOf(`id="operation/${op.operationId}"`)).split('<section')[0]!;
      expect(section, op.operationId).toContain('<a href="#lists">list page</a>');
      // Its example's results cut to their first fields, and the page says so.
      expect(section, op.operationId).toContain("The example's results show their first 3 fields");
      const example = JSON.parse(section.slice(section.lastIndexOf('<pre')).replace(/^[^{]*/, '').replace(/<\/pre>[\s\S]*$/, '').replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&amp;', '&')) as { results: object[] };
      for (const result of example.results) expect(Object.keys(result).length, op.operationId).toBeLessThanOrEqual(3);
    }
  });

  it('says the service’s own text patterns in words, never as the pattern', () => {
    expect(page).not.toContain('\\u001f');
    expect(page).toContain('one line, no control characters');
  });

  it('goes down the headings one level at a time', () => {
    const levels = [...page.matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));
    expect(levels[0]).toBe(1);
    levels.forEach((level, i) => i && expect(level - levels[i - 1]!, `heading ${i}`).toBeLessThanOrEqual(1));
  });
});

describe('the errors page', () => {
  const assets = { styles: ['/docs/docs.css'], scripts: ['/docs/docs.js'] };
  const page = renderErrors(PROBLEM_CATALOGUE, assets);
  const ids = [...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);

  it('has a section per problem type, at the anchor doc_url names, with its cause and what to do', () => {
    for (const p of PROBLEM_CATALOGUE) {
      expect(new URL(problemDocUrl('https://pay.example', p.code)).hash).toBe(`#${p.name}`);
      const start = page.indexOf(`<section id="${p.name}"`);
      expect(start, p.name).toBeGreaterThan(0);
      const section = page.slice(start, page.indexOf('</section>', start));
      expect(section).toContain(`<code>${p.type}</code>`);
      expect(section).toContain('What caused it');
      expect(section).toContain('What to do');
      expect(p.cause.length, p.name).toBeGreaterThan(20);
      expect(p.action.length, p.name).toBeGreaterThan(20);
    }
  });

  it('has every anchor it links to, no id twice, and headings one level at a time', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const [, target] of page.matchAll(/href="#([^"]+)"/g)) expect(ids, target).toContain(target);
    const levels = [...page.matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));
    expect(levels[0]).toBe(1);
    levels.forEach((level, i) => i && expect(level - levels[i - 1]!, `heading ${i}`).toBeLessThanOrEqual(1));
  });

  it('is what the reference links to, and links back to the Problem schema there', () => {
    const reference = renderReference(OpenApiDocument.parse(openApiDocument()), PROBLEM_CATALOGUE, assets);
    for (const [, target] of reference.matchAll(/href="\/docs\/errors#([^"]+)"/g)) expect(ids, target).toContain(target);
    expect(reference).toContain('id="schema/Problem"');
    expect(page).toContain('href="/docs/#schema/Problem"');
  });
});
