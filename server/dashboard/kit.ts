import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Deps } from '../deps';
import { type Actor, recordAudit } from '../store/audit';
import type { Db } from '../store/db';
import type { Role } from '../store/schema';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import { messagePage } from './account-pages';
import { environmentLinkPage, linkedPath } from './environment-link';
import type { DashboardText } from './i18n';
import { clientIp, validPost } from './http';

// What every group of dashboard routes is built with: the role and CSRF guards, the audit
// log, and the common answers.

declare module 'express-serve-static-core' {
  interface Request {
    dashboard?: { text: DashboardText; session: ActiveSession | null };
  }
}

export type Handler = (req: Request, res: Response, s: ActiveSession) => Promise<void>;

export interface Kit {
  deps: Deps;
  db: Db;
  /** Parses the pages' urlencoded forms (small: no form of ours carries much). */
  forms: RequestHandler;
  textOf(req: Request): DashboardText;
  send(res: Response, status: number, html: string): void;
  forbidden(req: Request, res: Response): void;
  notFound(req: Request, res: Response): void;
  audit(req: Request, s: ActiveSession | null, action: string, detail?: Record<string, string>): Promise<void>;
  /** The member as the store audits a change it makes in its own transaction. */
  actor(req: Request, s: ActiveSession): Actor;
  /** A page for signed-in users with at least `role`; without a session, the sign-in page. */
  page(role: Role, handler: Handler): (req: Request, res: Response) => Promise<void>;
  /** A state-changing POST: a session, its CSRF token and at least `role`, or 403 and nothing done. */
  action(role: Role, handler: Handler): (req: Request, res: Response) => Promise<void>;
}

export function dashboardKit(deps: Deps): Kit {
  const db = deps.database.db;
  const textOf = (req: Request) => req.dashboard!.text;
  const send = (res: Response, status: number, html: string) => void res.status(status).type('html').send(html);
  const back = (text: DashboardText) => ({ href: '/dashboard/', label: text.t('error.back') });
  const forbidden = (req: Request, res: Response) => {
    const text = textOf(req);
    send(res, 403, messagePage(text, text.t('error.forbidden.title'), text.t('error.forbidden.body'), back(text)));
  };
  const notFound = (req: Request, res: Response) => {
    const text = textOf(req);
    send(res, 404, messagePage(text, text.t('error.notFound.title'), text.t('error.notFound.body'), back(text)));
  };
  return {
    deps,
    db,
    forms: express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }),
    textOf,
    send,
    forbidden,
    notFound,
    audit: (req, s, action, detail) =>
      recordAudit(db, { environmentId: s?.current.environment_id ?? null, userId: s?.userId ?? null, email: s?.email ?? null, action, detail, ip: clientIp(req) }, deps.now()),
    actor: (req, s) => ({ userId: s.userId, email: s.email, ip: clientIp(req) }),
    page: (role, handler) => async (req, res) => {
      const s = req.dashboard!.session;
      if (!s) return res.redirect(303, '/dashboard/sign-in/');
      // A link into another of the member's environments: a page that offers to switch (environment-link.tsx).
      const linked = typeof req.query.environment === 'string' ? req.query.environment : s.current.environment_id;
      if (linked !== s.current.environment_id) {
        const target = s.memberships.find((m) => m.environment_id === linked);
        return target ? send(res, 200, environmentLinkPage(textOf(req), s, target, linkedPath(req.originalUrl))) : notFound(req, res);
      }
      if (!roleAtLeast(s.current.role, role)) return forbidden(req, res);
      await handler(req, res, s);
    },
    action: (role, handler) => async (req, res) => {
      const s = req.dashboard!.session;
      if (!s || !validPost(req, deps, s.csrf) || !roleAtLeast(s.current.role, role)) return forbidden(req, res);
      // A body no form parser took (none, JSON, text; the CSRF token sent as a header) is
      // no field at all: each form then says what is missing, rather than failing on it.
      req.body ??= {};
      await handler(req, res, s);
    },
  };
}
