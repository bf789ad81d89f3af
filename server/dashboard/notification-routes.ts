import type { IRouter } from 'express';
import { z } from 'zod';
import { TEAM_NOTIFICATIONS, type TeamChoices, type TeamNotification } from '../domain/team-notifications';
import { choicesFor, setChoices } from '../store/notification-preferences';
import type { Kit } from './kit';
import { notificationPage } from './notification-page';

// /dashboard/account/notifications/: a member chooses which of the team's emails they get
// about the current environment (any role, for themselves only; audited). The emails are
// written in the language of the page they saved from.

const checkbox = z.literal('on').optional();
/** A checked box sends `on`, an unchecked one nothing; anything else is refused, nothing saved. */
const notificationForm = z.object(Object.fromEntries(TEAM_NOTIFICATIONS.map((k) => [k, checkbox])) as Record<TeamNotification, typeof checkbox>);

export function notificationRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit } = kit;

  router.get('/account/notifications/', page('viewer', async (req, res, s) => {
    const choices = await choicesFor(db, s.userId, s.current.environment_id, s.current.role);
    send(res, 200, notificationPage({ text: textOf(req), session: s, choices, saved: req.query.saved === '1' }));
  }));

  router.post('/account/notifications/', forms, action('viewer', async (req, res, s) => {
    const parsed = notificationForm.safeParse(req.body ?? {});
    const text = textOf(req);
    if (!parsed.success) {
      const invalid = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
      const choices = await choicesFor(db, s.userId, s.current.environment_id, s.current.role);
      return send(res, 400, notificationPage({ text, session: s, choices, invalid }));
    }
    const choices = Object.fromEntries(TEAM_NOTIFICATIONS.map((k) => [k, parsed.data[k] === 'on'])) as TeamChoices;
    await setChoices(db, { userId: s.userId, environmentId: s.current.environment_id, choices, language: text.language, now: deps.now() });
    await audit(req, s, 'notifications_changed', Object.fromEntries(TEAM_NOTIFICATIONS.map((k) => [k, choices[k] ? 'on' : 'off'])));
    res.redirect(303, '/dashboard/account/notifications/?saved=1');
  }));
}
