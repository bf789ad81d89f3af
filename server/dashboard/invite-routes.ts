import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { recordAudit } from '../store/audit';
import { findEnvironment } from '../store/environments';
import { CHALLENGE_TTL_MS, findInvite, startSession, useInvite } from './accounts';
import { invitePage, messagePage, type Notice } from './account-pages';
import { CHALLENGE_COOKIE, clientIp, cookie, FORM_COOKIE, formToken, setCookie, startSessionCookie, validPost } from './http';
import type { Kit } from './kit';

// /dashboard/invite/{token}/: an invited user chooses a password, joins the environment
// and is signed in.

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const inviteForm = z.object({ password: z.string().max(1024) });

export function inviteRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, textOf, send, forbidden } = kit;

  const invalidInvite = (req: Request, res: Response) => {
    const { t } = textOf(req);
    send(res, 404, messagePage(textOf(req), t('invite.invalid.title'), t('invite.invalid.body')));
  };

  router.get('/invite/:token/', async (req, res) => {
    const token = String(req.params.token);
    const invite = TOKEN.test(token) ? await findInvite(db, token, deps.now()) : undefined;
    if (!invite) return invalidInvite(req, res);
    const environment = await findEnvironment(db, invite.environment_id);
    send(res, 200, invitePage(textOf(req), { csrf: formToken(req, res, deps), invite, environmentName: environment?.name ?? '' }));
  });

  router.post('/invite/:token/', forms, async (req, res) => {
    const csrf = cookie(req, FORM_COOKIE);
    if (!validPost(req, deps, csrf)) return forbidden(req, res);
    const token = String(req.params.token);
    const form = inviteForm.safeParse(req.body);
    if (!TOKEN.test(token) || !form.success) return invalidInvite(req, res);
    const now = deps.now();
    const invite = await findInvite(db, token, now);
    const result = await useInvite(db, { token, password: form.data.password, ip: clientIp(req), now, passwordCost: deps.config.passwordHashCost });
    if (result.kind === 'invalid' || !invite) return invalidInvite(req, res);
    if (result.kind === 'password' || result.kind === 'throttled') {
      const environment = await findEnvironment(db, invite.environment_id);
      const { t } = textOf(req);
      const text = result.kind === 'throttled' ? t('signIn.throttled', { minutes: Math.ceil(result.retryAfterS / 60) }) : t(`password.${result.problem}`);
      if (result.kind === 'throttled') res.set('Retry-After', String(result.retryAfterS));
      const notice: Notice = { kind: 'error', text };
      return send(res, result.kind === 'throttled' ? 429 : 400, invitePage(textOf(req), { csrf: csrf!, invite, environmentName: environment?.name ?? '', notice }));
    }
    await recordAudit(db, { environmentId: invite.environment_id, userId: invite.user_id, email: invite.email, action: 'invite_accepted', ip: clientIp(req) }, now);
    // Joined; an account with a second factor gives its code before it is signed in.
    if (result.kind === 'second_factor') {
      setCookie(req, res, deps, CHALLENGE_COOKIE, result.challenge, CHALLENGE_TTL_MS / 1000, 'Strict');
      return res.redirect(303, '/dashboard/sign-in/code/');
    }
    const session = await startSession(db, result.userId, result.environmentId, now);
    startSessionCookie(req, res, deps, session.id);
    res.redirect(303, '/dashboard/');
  });
}
