import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { SINGLE_LINE } from '../../widget/fields/text';
import { type ApiKey, createApiKey, endOlderSecret, findApiKey, KEY_LABEL_MAX, listApiKeys, olderSecretUntil, revokeApiKey, rollApiKey } from '../store/api-keys';
import type { ActiveSession } from './accounts';
import { keepForSession, takeForSession } from './key-reveal';
import type { Kit } from './kit';
import { endOlderConfirmPage, keysPage, type KeysPageExtra, revokeConfirmPage, rollConfirmPage, ROLL_WINDOWS_H } from './keys-page';

// /dashboard/keys/: owners create, roll and revoke the environment's API keys, and end a
// rolled key's older secret early. Every key is looked up within the session's
// environment: another environment's id is a 404. A new secret is never in a POST's
// answer: the POST redirects (303) to the key's `revealed/` page, which shows it once and,
// reloaded, says it was shown (key-reveal.ts); so a reload never makes another secret.
// docs/dashboard.md#api-keys.

const createForm = z.object({ label: z.string().trim().min(1).max(KEY_LABEL_MAX).regex(SINGLE_LINE) });
const confirm = z.literal('yes').optional();
const rollForm = z.object({ overlap_hours: z.coerce.number().pipe(z.union(ROLL_WINDOWS_H.map((h) => z.literal(h)))), confirm });
const confirmForm = z.object({ confirm });
const KEY_ID = /^[0-9a-f-]{36}$/;

const revealed = (keyId: string) => `/dashboard/keys/${keyId}/revealed/`;

export function keysRoutes(router: IRouter, kit: Kit): void {
  const keys = keysOf(kit);
  listAndCreate(router, kit, keys);
  rollRoute(router, kit, keys);
  revealRoute(router, kit, keys);
  endOlderRoute(router, kit, keys);
  revokeRoute(router, kit, keys);
}

function keysOf({ db, deps, send, textOf }: Kit) {
  return {
    /** The session's environment's key with this id, or undefined. */
    find: async (s: ActiveSession, id: unknown): Promise<ApiKey | undefined> =>
      typeof id === 'string' && KEY_ID.test(id) ? findApiKey(db, s.current.environment_id, id) : undefined,
    /** The keys page, with whatever this answer adds to it. */
    show: async (req: Request, res: Response, s: ActiveSession, status: number, extra: KeysPageExtra = {}) =>
      send(res, status, keysPage({ text: textOf(req), session: s, keys: await listApiKeys(db, s.current.environment_id), now: deps.now(), ...extra })),
  };
}
type Keys = ReturnType<typeof keysOf>;

function listAndCreate(router: IRouter, { db, deps, forms, page, action, audit }: Kit, keys: Keys): void {
  router.get('/keys/', page('owner', async (req, res, s) => keys.show(req, res, s, 200)));

  router.post('/keys/', forms, action('owner', async (req, res, s) => {
    const form = createForm.safeParse(req.body);
    if (!form.success) return keys.show(req, res, s, 400, { labelInvalid: true });
    const now = deps.now();
    const key = await createApiKey(db, { id: s.current.environment_id, mode: s.current.environment_mode }, form.data.label, now, keepForSession(req, s, now));
    await audit(req, s, 'key_created', { label: key.label, public_key: key.public_key });
    res.redirect(303, revealed(key.id));
  }));
}

/** The first post asks (stating what the chosen window means); the confirmed one rolls, or is refused (409) by the one-older-secret rule. */
function rollRoute(router: IRouter, { db, deps, forms, action, audit, send, textOf, notFound }: Kit, keys: Keys): void {
  router.post('/keys/:id/roll/', forms, action('owner', async (req, res, s) => {
    const key = await keys.find(s, req.params.id);
    if (!key || key.revoked_at) return notFound(req, res);
    const form = rollForm.safeParse(req.body);
    if (!form.success) return keys.show(req, res, s, 400);
    const hours = form.data.overlap_hours;
    const now = deps.now();
    if (form.data.confirm !== 'yes') return send(res, 200, rollConfirmPage({ text: textOf(req), session: s, key, hours, now }));
    const outcome = await rollApiKey(db, s.current.environment_id, key.id, hours * 3600_000, now, keepForSession(req, s, now));
    if (outcome.kind === 'gone') return notFound(req, res);
    if (outcome.kind === 'older_secret_working') {
      return send(res, 409, rollConfirmPage({ text: textOf(req), session: s, key: { ...key, previous_expires_at: outcome.until }, hours, now }));
    }
    await audit(req, s, 'key_rolled', { label: key.label, public_key: key.public_key, hours: String(hours) });
    res.redirect(303, revealed(key.id));
  }));
}

/** The new secret, to the session that made it, once; any later load says it was shown. Never cached. */
function revealRoute(router: IRouter, { db, deps, page, notFound }: Kit, keys: Keys): void {
  router.get('/keys/:id/revealed/', page('owner', async (req, res, s) => {
    const key = await keys.find(s, req.params.id);
    if (!key) return notFound(req, res);
    const secret = await takeForSession(db, req, s, key.id, deps.now());
    // Every dashboard answer says so already (http.ts); this one must, whatever changes there.
    res.setHeader('Cache-Control', 'no-store');
    await keys.show(req, res, s, 200, { reveal: { label: key.label, secret } });
  }));
}

/** For a leaked secret: ends the key's older secret now, before the expiry its roll gave it (asked first). */
function endOlderRoute(router: IRouter, { db, deps, forms, action, audit, send, textOf, notFound }: Kit, keys: Keys): void {
  router.post('/keys/:id/end-older/', forms, action('owner', async (req, res, s) => {
    const key = await keys.find(s, req.params.id);
    if (!key) return notFound(req, res);
    const until = olderSecretUntil(key, deps.now());
    // Nothing left to end (ended meanwhile, or past its time): the list shows as much.
    if (!until) return res.redirect(303, '/dashboard/keys/');
    const form = confirmForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, endOlderConfirmPage({ text: textOf(req), session: s, key, until }));
    if (await endOlderSecret(db, s.current.environment_id, key.id, deps.now())) {
      await audit(req, s, 'key_older_ended', { label: key.label, public_key: key.public_key, until });
    }
    res.redirect(303, '/dashboard/keys/');
  }));
}

function revokeRoute(router: IRouter, { db, deps, forms, action, audit, send, textOf, notFound }: Kit, keys: Keys): void {
  router.post('/keys/:id/revoke/', forms, action('owner', async (req, res, s) => {
    const key = await keys.find(s, req.params.id);
    if (!key || key.revoked_at) return notFound(req, res);
    const form = confirmForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, revokeConfirmPage({ text: textOf(req), session: s, key }));
    if (await revokeApiKey(db, s.current.environment_id, key.id, deps.now())) await audit(req, s, 'key_revoked', { label: key.label, public_key: key.public_key });
    res.redirect(303, '/dashboard/keys/');
  }));
}
