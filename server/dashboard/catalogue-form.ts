import { z } from 'zod';
import type { CatalogueGroupChanges } from '../commands/catalogue-changes';

// The catalogue's forms are drawn from the API's own schemas (commands/catalogue-changes.ts),
// and a submitted form becomes the API's input: the same parse, rules, store calls and
// events, with no second copy of a rule.

export const GROUPS = ['product', 'plan', 'tax', 'shipping', 'coupon'] as const;
export type GroupName = (typeof GROUPS)[number];

/** Fields the forms know labels for (every field of the five groups but `enabled`). */
export const FIELDS = ['name', 'product_id', 'plan_id', 'code', 'description', 'price', 'amount', 'rate', 'value', 'kind', 'currency', 'interval', 'interval_count', 'trial_days'] as const;
export type FieldName = (typeof FIELDS)[number];

export interface FormField {
  name: FieldName;
  kind: 'text' | 'textarea' | 'number' | 'select';
  options: string[];
  required: boolean;
  nullable: boolean;
}

/** A short closed list is a select; a long one (currencies) a text field the API checks. */
const MAX_SELECT_OPTIONS = 8;

function fieldOf(name: FieldName, schema: z.ZodType): FormField {
  let inner = schema;
  let required = true;
  let nullable = false;
  for (;;) {
    if (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) required = false;
    else if (inner instanceof z.ZodNullable) nullable = true;
    else break;
    inner = (inner as z.ZodDefault<z.ZodType>).unwrap() as z.ZodType;
  }
  const options = inner instanceof z.ZodEnum ? (inner.options as string[]) : [];
  const kind = inner instanceof z.ZodNumber ? 'number' : options.length > 0 && options.length <= MAX_SELECT_OPTIONS ? 'select' : name === 'description' ? 'textarea' : 'text';
  return { name, kind, options: kind === 'select' ? options : [], required: required && !nullable, nullable };
}

/** The form's fields for a group, in the schema's order; `enabled` has buttons of its own. */
export function formFields(group: CatalogueGroupChanges): FormField[] {
  return Object.entries(group.fields.shape)
    .filter((entry): entry is [FieldName, z.ZodType] => (FIELDS as readonly string[]).includes(entry[0]))
    .map(([name, schema]) => fieldOf(name, schema));
}

const NUMBER = /^\s*-?\d+([.,]\d+)?\s*$/;

/**
 * The API's input from a posted form: an empty field is null where the API allows null and
 * absent otherwise (its default, or the API's own "required"); a number field a number when
 * it reads as one (else the text, which the API refuses naming the field).
 */
export function formInput(fields: FormField[], body: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = body[f.name];
    if (typeof raw !== 'string') continue;
    if (raw.trim() === '') {
      if (f.nullable) input[f.name] = null;
      continue;
    }
    input[f.name] = f.kind === 'number' && NUMBER.test(raw) ? Number(raw.trim().replace(',', '.')) : raw;
  }
  return input;
}

/** A form's values as text: what was posted, or the object as the API shows it. */
export function formValues(fields: FormField[], source: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.name, source[f.name] === null || source[f.name] === undefined ? '' : String(source[f.name])]));
}
