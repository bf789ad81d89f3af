import { z } from 'zod';
import { SINGLE_LINE } from '../../widget/fields/text';

// What the payment page and the sign-up page accept when their form is posted: JSON from
// the hydrated screen, or the urlencoded form without JavaScript.

/** Every text of the form is a single line (widget/fields/text.ts): a card holder's name too. */
const line = (max: number) => z.string().max(max).regex(SINGLE_LINE);

export const payRequest = z.object({
  action: z.enum(['pay', 'cancel']),
  gateway: line(64).nullish(),
  fields: z.record(line(64), line(256)).default({}),
  csrf: line(128).optional(),
  /** Form posts only: the second step of cancelling (the hydrated screen asks on its own). */
  confirm: z.literal('1').optional(),
  /** Form posts only: the gateway whose fields the page showed ('' for none yet). */
  fieldsOf: line(64).optional(),
});
export type PayRequest = z.infer<typeof payRequest>;

/** The urlencoded form: the same request, with gateway fields at the top level. */
export function fromForm(body: Record<string, unknown>): unknown {
  const { action, gateway, csrf, confirm, fields_of: fieldsOf, ...fields } = body;
  return { action, gateway: gateway || null, csrf, confirm, fieldsOf, fields };
}
