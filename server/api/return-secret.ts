import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { findReturnSecrets, type ReturnSecrets, rollReturnSecret } from '../store/environments';
import { dateTime } from '../schemas/fields';

// The environment's return-signing secret: what signs the customer's return to
// return_url and cancel_url (docs/checkout.md "Signed returns"). Not the webhook secret.

const secretOut = z
  .object({
    secret: z.string().describe('The secret (`whsec_` and base64) that signs every return from now on'),
    previous_expires: dateTime
      .nullable()
      .describe('After a roll: until when returns are also signed with the previous secret (a second signature), so either verifies; null otherwise'),
  })
  .meta({ id: 'ReturnSecret', description: 'The return-signing secret of your environment' });

const rollBody = z
  .strictObject({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .default(24 * 3600)
      .describe('How long the previous secret keeps signing too (default one day; 0: stop at once)'),
  })
  .meta({ id: 'ReturnSecretRollInput', description: 'How long the replaced secret keeps signing' });

const present = (s: ReturnSecrets) => ({ secret: s.secret, previous_expires: s.previous?.expiresAt ?? null });

const EXAMPLE = { secret: 'whsec_FAKE_example_endpoint_secret', previous_expires: null };

export const returnSecretRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/environment/return_secret/',
    operationId: 'getReturnSecret',
    summary: 'Get the return-signing secret',
    description: 'The secret that signs the `signature` parameter of every return to `return_url` and `cancel_url`; verify returns with it on your server.',
    example: { response: EXAMPLE },
    tag: 'Environment',
    response: secretOut,
    status: 200,
    async handler({ env, deps, db }) {
      return present(await findReturnSecrets(db, env.id, deps.now()));
    },
  }),
  route({
    method: 'post',
    path: '/environment/return_secret/roll/',
    operationId: 'rollReturnSecret',
    summary: 'Roll the return-signing secret',
    description:
      'Replaces the return-signing secret. For `overlap_seconds` (default one day) returns carry a second signature by the previous secret, ' +
      'so a server that still verifies with it keeps working while you deploy the new one.',
    example: { request: { overlap_seconds: 3600 }, response: { ...EXAMPLE, previous_expires: '2026-01-15T11:00:00.000Z' } },
    tag: 'Environment',
    body: rollBody,
    response: secretOut,
    status: 200,
    async handler({ env, body, deps, db }) {
      return present(await rollReturnSecret(db, env.id, deps.now(), body.overlap_seconds * 1000));
    },
  }),
];
