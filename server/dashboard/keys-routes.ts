import type { IRouter } from 'express';
import { z } from 'zod';
import { createApiKey, findApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../store/api-keys';
import type { Kit } from './kit';
import { keysPage, revokeConfirmPage, ROLL_WINDOWS_H } from './keys-page';

// /dashboard/keys/: owners create, roll and revoke the environment's API keys. Every key
// is looked up within the session's environment: another environment's id is a 404.

const createForm = z.object({ label: z.string().trim().min(1).max(100) });
const rollForm = z.object({ overlap_hours: z.coerce.number().pipe(z.union(ROLL_WINDOWS_H.map((h) => z.literal(h)))) });
const revokeForm = z.object({ confirm: z.literal('yes').optional() });
const KEY_ID = /^[0-9a-f-]{36}$/;

export function keysRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;
  const list = (environmentId: string) => listApiKeys(db, environmentId);

  router.get('/keys/', page('owner', async (req, res, s) => {
    send(res, 200, keysPage({ text: textOf(req), session: s, keys: await list(s.current.environment_id), now: deps.now() }));
  }));

  router.post('/keys/', forms, action('owner', async (req, res, s) => {
    const env = s.current.environment_id;
    const form = createForm.safeParse(req.body);
    if (!form.success) return send(res, 400, keysPage({ text: textOf(req), session: s, keys: await list(env), now: deps.now() }));
    const secret = await createApiKey(db, { id: env, mode: s.current.environment_mode }, form.data.label, deps.now());
    await audit(req, s, 'key_created', { label: secret.label, public_key: secret.public_key });
    send(res, 201, keysPage({ text: textOf(req), session: s, keys: await list(env), now: deps.now(), secret }));
  }));

  router.post('/keys/:id/roll/', forms, action('owner', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const form = rollForm.safeParse(req.body);
    if (!KEY_ID.test(id) || !(await findApiKey(db, env, id))) return notFound(req, res);
    if (!form.success) return send(res, 400, keysPage({ text: textOf(req), session: s, keys: await list(env), now: deps.now() }));
    const hours = form.data.overlap_hours;
    const secret = await rollApiKey(db, env, id, hours * 3600_000, deps.now());
    if (!secret) return notFound(req, res);
    await audit(req, s, 'key_rolled', { label: secret.label, public_key: secret.public_key, hours: String(hours) });
    send(res, 200, keysPage({ text: textOf(req), session: s, keys: await list(env), now: deps.now(), secret }));
  }));

  router.post('/keys/:id/revoke/', forms, action('owner', async (req, res, s) => {
    const env = s.current.environment_id;
    const id = String(req.params.id);
    const key = KEY_ID.test(id) ? await findApiKey(db, env, id) : undefined;
    if (!key || key.revoked_at) return notFound(req, res);
    const form = revokeForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, revokeConfirmPage({ text: textOf(req), session: s, key }));
    if (await revokeApiKey(db, env, id, deps.now())) await audit(req, s, 'key_revoked', { label: key.label, public_key: key.public_key });
    res.redirect(303, '/dashboard/keys/');
  }));
}
