import type { ActiveSession } from './accounts';
import type { DashboardKey, DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { READINESS_URL } from './live-readiness-page';
import { isExportKind } from './export-csv';
import type { CurrencyFigures } from './home-figures';
import { Figures, NeedsAttention } from './home-page';
import { RecentActivity } from './recent-activity';
import { AuditFilterForm, auditQueryString } from './audit-filters';
import type { AuditFilters } from './audit-filters';
import type { HomeAttention } from './home-attention';
import type { AuditRow, Role } from '../store/schema';
import type { RecentEvent } from '../store/event-list';

// The pages of a signed-in user. Each receives what its route loaded, already scoped to
// the session's environment.

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

/** The first request a merchant makes, with their own public key (the secret they have). */
export function firstTransactionCurl(baseUrl: string, publicKey: string | null): string {
  const body = JSON.stringify({ currency: 'EUR', order_id: 'order-1', products: [{ amount: 1, product: { name: 'Test product', price: 10 } }] });
  return [
    `curl -s ${baseUrl}/v1/transaction/ \\`,
    `  -H 'Authorization: AppKeys ${publicKey ?? 'YOUR_PUBLIC_KEY'}:YOUR_SECRET_KEY' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${body}'`,
  ].join('\n');
}

export interface HomeData {
  publicKey: string | null;
  transactions: number;
  baseUrl: string;
  figures: CurrencyFigures[];
  attention: HomeAttention;
  activity: RecentEvent[];
}

export function overviewPage(p: Signed & HomeData): string {
  const { t } = p.text;
  return renderPage(
    { text: p.text, session: p.session, title: t('overview.title'), active: 'overview' },
    <>
      <dl class="facts">
        <dt>{t('overview.environment')}</dt>
        <dd>{`${p.session.current.environment_name} (${t(`env.mode.${p.session.current.environment_mode}`)})`}</dd>
        <dt>{t('overview.publicKey')}</dt>
        <dd>{p.publicKey ? <code>{p.publicKey}</code> : '—'}</dd>
        <dt>{t('overview.readiness')}</dt>
        <dd>
          <a href={READINESS_URL}>{t('overview.readinessLink')}</a>
        </dd>
      </dl>
      {p.transactions === 0 ? (
        <section class="empty" aria-labelledby="first-steps">
          <p id="first-steps">{t('overview.empty')}</p>
          <pre tabindex={0}>
            <code>{firstTransactionCurl(p.baseUrl, p.publicKey)}</code>
          </pre>
        </section>
      ) : (
        <p>{t('overview.transactions', { count: p.transactions })}</p>
      )}
      <NeedsAttention text={p.text} attention={p.attention} />
      <RecentActivity text={p.text} events={p.activity} />
      <Figures text={p.text} figures={p.figures} />
    </>,
  );
}

export interface Member {
  id: string;
  email: string;
  role: Role;
  created_at: string;
}

export function teamPage(p: Signed & { members: Member[]; invited?: { email: string; url: string } }): string {
  const { t } = p.text;
  const roles: Role[] = ['viewer', 'admin', 'owner'];
  return renderPage(
    { text: p.text, session: p.session, title: t('team.title'), active: 'team' },
    <>
      {p.invited && (
        <div class="notice info" role="status">
          <p>{t('team.inviteLink', { email: p.invited.email })}</p>
          <p>
            <code class="secret">{p.invited.url}</code>
          </p>
        </div>
      )}
      <div class="scroll" tabindex={0} role="region" aria-label={t('team.title')}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('team.email')}</th>
              <th scope="col">{t('team.role')}</th>
              <th scope="col">{t('team.since')}</th>
            </tr>
          </thead>
          <tbody>
            {p.members.map((m) => (
              <tr key={m.id}>
                <td>{m.email}</td>
                <td>{t(`env.role.${m.role}`)}</td>
                <td>{p.text.dateTime(m.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t('team.invite')}</h2>
      <form method="post" action="/dashboard/team/invite/" class="card">
        <Csrf token={p.session.csrf} />
        <label for="invite-email">{t('team.email')}</label>
        <input id="invite-email" name="email" type="email" required autocomplete="off" />
        <label for="invite-role">{t('team.role')}</label>
        <select id="invite-role" name="role">
          {roles.map((r) => (
            <option key={r} value={r}>
              {t(`env.role.${r}`)}
            </option>
          ))}
        </select>
        <button type="submit" class="primary">
          {t('team.inviteSubmit')}
        </button>
      </form>
    </>,
  );
}

const ACTIONS: Record<string, DashboardKey> = {
  signed_in: 'audit.action.signed_in',
  sign_in_failed: 'audit.action.sign_in_failed',
  signed_out: 'audit.action.signed_out',
  signed_out_everywhere: 'audit.action.signed_out_everywhere',
  invite_created: 'audit.action.invite_created',
  invite_accepted: 'audit.action.invite_accepted',
  environment_switched: 'audit.action.environment_switched',
  key_created: 'audit.action.key_created',
  key_rolled: 'audit.action.key_rolled',
  key_older_ended: 'audit.action.key_older_ended',
  key_revoked: 'audit.action.key_revoked',
  sale_capture: 'audit.action.sale_capture',
  sale_refund: 'audit.action.sale_refund',
  sale_void: 'audit.action.sale_void',
  receipt_resent: 'audit.action.receipt_resent',
  note_added: 'audit.action.note_added',
  webhook_resent: 'audit.action.webhook_resent',
  exported: 'audit.action.exported',
  signed_in_recovery: 'audit.action.signed_in_recovery',
  totp_enabled: 'audit.action.totp_enabled',
  totp_disabled: 'audit.action.totp_disabled',
  totp_disable_failed: 'audit.action.totp_disable_failed',
  password_reset_requested: 'audit.action.password_reset_requested',
  password_reset: 'audit.action.password_reset',
  password_changed: 'audit.action.password_changed',
  password_change_failed: 'audit.action.password_change_failed',
  settings_changed: 'audit.action.settings_changed',
  notifications_changed: 'audit.action.notifications_changed',
  catalogue_created: 'audit.action.catalogue_created',
  catalogue_updated: 'audit.action.catalogue_updated',
  catalogue_enabled: 'audit.action.catalogue_enabled',
  catalogue_disabled: 'audit.action.catalogue_disabled',
  document_accepted: 'audit.action.document_accepted',
  document_rejected: 'audit.action.document_rejected',
  subscription_pause: 'audit.action.subscription_pause',
  subscription_resume: 'audit.action.subscription_resume',
  subscription_stop: 'audit.action.subscription_stop',
  authorization_removed: 'audit.action.authorization_removed',
  event_retried: 'audit.action.event_retried',
  webhook_endpoint_created: 'audit.action.webhook_endpoint_created',
  webhook_endpoint_updated: 'audit.action.webhook_endpoint_updated',
  webhook_endpoint_enabled: 'audit.action.webhook_endpoint_enabled',
  webhook_endpoint_disabled: 'audit.action.webhook_endpoint_disabled',
  webhook_endpoint_deleted: 'audit.action.webhook_endpoint_deleted',
  webhook_endpoint_secret_rolled: 'audit.action.webhook_endpoint_secret_rolled',
  processor_connected: 'audit.action.processor_connected',
  processor_changed: 'audit.action.processor_changed',
  processor_disconnected: 'audit.action.processor_disconnected',
  logo_changed: 'audit.action.logo_changed',
  logo_removed: 'audit.action.logo_removed',
  environment_paired: 'audit.action.environment_paired',
  environment_unpaired: 'audit.action.environment_unpaired',
  settlement_downloaded: 'audit.action.settlement_downloaded',
  dispute_evidence_saved: 'audit.action.dispute_evidence_saved',
  dispute_file_added: 'audit.action.dispute_file_added',
  dispute_submitted: 'audit.action.dispute_submitted',
  dispute_accepted: 'audit.action.dispute_accepted',
};

function describeAction(text: DashboardText, row: AuditRow): string {
  const key = ACTIONS[row.action];
  if (!key) return row.action;
  const detail = row.detail ? (JSON.parse(row.detail) as Record<string, string>) : {};
  return text.t(key, {
    ...detail,
    ...(detail.role ? { role: text.t(`env.role.${detail.role as Role}`) } : {}),
    ...(detail.kind && isExportKind(detail.kind) ? { kind: text.t(`export.kind.${detail.kind}`) } : {}),
  });
}

/**
 * Who: the member's email (or the person the keys command named with --by), else the API
 * key that made the change (by its label), else the machine account that ran the keys command.
 */
function whoOf(text: DashboardText, row: AuditRow): string {
  if (row.email) return row.email;
  const detail = row.detail ? (JSON.parse(row.detail) as Record<string, string>) : {};
  if (detail.api_key_label) return text.t('audit.apiKey', { label: detail.api_key_label });
  return detail.operator ? text.t('audit.operator', { operator: detail.operator }) : '—';
}

/** The actions the log can hold, for its filter. */
const AUDIT_ACTIONS = Object.keys(ACTIONS);

export function auditPage(p: Signed & { rows: AuditRow[]; page: number; hasMore: boolean; filters: AuditFilters; emails: string[] }): string {
  const { t } = p.text;
  const filtered = Object.keys(p.filters).length > 0;
  return renderPage(
    { text: p.text, session: p.session, title: t('audit.title'), active: 'audit' },
    <>
      <AuditFilterForm text={p.text} filters={p.filters} actions={AUDIT_ACTIONS} emails={p.emails} />
      {p.rows.length === 0 ? (
        <p class="empty">{t(filtered ? 'audit.noMatch' : 'audit.empty')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('audit.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('audit.when')}</th>
                <th scope="col">{t('audit.who')}</th>
                <th scope="col">{t('audit.what')}</th>
                <th scope="col">{t('audit.ip')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r) => (
                <tr key={r.id}>
                  <td>{p.text.dateTime(r.created_at)}</td>
                  <td>{whoOf(p.text, r)}</td>
                  <td>{describeAction(p.text, r)}</td>
                  <td>{r.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label={t('audit.title')}>
        {p.page > 1 && <a href={`/dashboard/audit/${auditQueryString(p.filters, p.page - 1)}`}>{t('audit.newer')}</a>}
        {p.hasMore && <a href={`/dashboard/audit/${auditQueryString(p.filters, p.page + 1)}`}>{t('audit.older')}</a>}
      </nav>
    </>,
  );
}
