import { z } from 'zod';

// Every object of an environment says whether it is live (`livemode`, as Stripe's do), so
// a merchant's code can refuse to ship a sandbox order. The answer's schema declares the
// field where it belongs; the route fills it from the request's environment, once, for
// every declared place, instead of each presenter being handed the environment.

/** The field, for an object schema of an answer. Its default only types it as filled in later (by `livemodeStamp`). */
export const livemodeField = z.boolean().default(false).describe('`true` for an object of a live environment, `false` for a sandbox one');

type Stamp = (value: unknown, live: boolean) => void;

const wrapped = (schema: z.ZodType): z.ZodType | undefined =>
  schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : undefined;

/**
 * What sets `livemode` in an answer of `schema`: on each object whose schema declares the
 * field, at any depth (lists' `results`, nested objects); undefined when none does.
 */
export function livemodeStamp(schema: z.ZodType | undefined): Stamp | undefined {
  if (!schema) return undefined;
  const inner = wrapped(schema);
  if (inner) return livemodeStamp(inner);
  if (schema instanceof z.ZodArray) {
    const each = livemodeStamp(schema.element as z.ZodType);
    return each && ((value, live) => Array.isArray(value) && value.forEach((v) => each(v, live)));
  }
  if (!(schema instanceof z.ZodObject)) return undefined;
  const shape = schema.shape as Record<string, z.ZodType>;
  const own = 'livemode' in shape;
  const fields = Object.entries(shape).flatMap(([key, field]) => {
    const stamp = key === 'livemode' ? undefined : livemodeStamp(field);
    return stamp ? [[key, stamp] as const] : [];
  });
  if (!own && !fields.length) return undefined;
  return (value, live) => {
    if (!value || typeof value !== 'object') return;
    const object = value as Record<string, unknown>;
    if (own) object.livemode = live;
    for (const [key, stamp] of fields) stamp(object[key], live);
  };
}
