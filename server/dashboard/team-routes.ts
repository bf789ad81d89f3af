import type { IRouter } from 'express';
import { z } from 'zod';
import { baseUrlOf } from '../http/route';
import { auditOf } from '../store/audit';
import type { Role } from '../store/schema';
import { membersOf, ROLES } from '../store/users';
import { inviteMember, inviteUrl } from './accounts';
import type { Kit } from './kit';
import { auditPage, teamPage } from './pages';
import { parseAuditFilters, storeAuditFilters } from './audit-filters';

// /dashboard/team/ and /dashboard/audit/: owners see the environment's members, invite
// new ones, and read the audit log.

const AUDIT_PAGE_SIZE = 50;

const teamInviteForm = z.object({ email: z.email().max(320), role: z.enum(ROLES as [Role, ...Role[]]) });
const auditQuery = z.object({ page: z.coerce.number().int().min(1).max(10_000).default(1) });

export function teamRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, textOf, send, page, action, audit } = kit;

  router.get('/team/', page('owner', async (req, res, s) => {
    send(res, 200, teamPage({ text: textOf(req), session: s, members: await membersOf(db, s.current.environment_id) }));
  }));

  router.post('/team/invite/', forms, action('owner', async (req, res, s) => {
    const form = teamInviteForm.safeParse(req.body);
    const members = () => membersOf(db, s.current.environment_id);
    if (!form.success) return send(res, 400, teamPage({ text: textOf(req), session: s, members: await members() }));
    const baseUrl = baseUrlOf(req, deps);
    const { token } = await inviteMember(db, {
      email: form.data.email,
      environmentId: s.current.environment_id,
      environmentName: s.current.environment_name,
      role: form.data.role,
      invitedBy: s.userId,
      inviterEmail: s.email,
      language: textOf(req).language,
      baseUrl,
      now: deps.now(),
    });
    await audit(req, s, 'invite_created', { email: form.data.email, role: form.data.role });
    const invited = { email: form.data.email, url: inviteUrl(baseUrl, token) };
    send(res, 201, teamPage({ text: textOf(req), session: s, members: await members(), invited }));
  }));

  router.get('/audit/', page('owner', async (req, res, s) => {
    const query = auditQuery.safeParse(req.query);
    const pageNo = query.success ? query.data.page : 1;
    const filters = parseAuditFilters(req.query as Record<string, unknown>);
    const text = textOf(req);
    const rows = await auditOf(db, s.current.environment_id, { ...storeAuditFilters(filters, text.timeZone), limit: AUDIT_PAGE_SIZE + 1, offset: (pageNo - 1) * AUDIT_PAGE_SIZE });
    const emails = (await membersOf(db, s.current.environment_id)).map((m) => m.email).sort();
    send(res, 200, auditPage({ text, session: s, rows: rows.slice(0, AUDIT_PAGE_SIZE), page: pageNo, hasMore: rows.length > AUDIT_PAGE_SIZE, filters, emails }));
  }));
}
