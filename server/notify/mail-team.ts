import { isLanguage, type Language } from '../../widget/i18n/language';
import type { DisputeReason } from '../domain/disputes';
import { uuidv7 } from '../domain/ids';
import type { TeamNotification } from '../domain/team-notifications';
import { DEFAULT_TIME_ZONE } from '../domain/time-zone';
import type { Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import { insertMail } from '../store/mails';
import { recipientsOf } from '../store/notification-preferences';
import type { MailBody } from './mail-compose';
import type { Merchant } from './mail-content';
import type { MailText } from './mail-text';

// The emails to a merchant's team (docs/dashboard.md "Notifications"): a new dispute, a
// failed payout, a webhook endpoint failing for a day. Queued in the transaction of the
// change (the outbox's, or the failing-endpoint job's claim), one per member who wants it,
// in the language the member chose in (else the dashboard's default, English); times in
// the shop's time zone. Amounts, reasons and links only: no customer's data.

const SENDER: Merchant = { name: 'Payments dashboard', supportEmail: null };

interface TeamCommon {
  language: Language;
  merchant: Merchant;
  baseUrl: string;
  environment: string;
  timeZone: string;
  /** The dashboard page of the object. */
  url: string;
}

export interface DisputeOpenedMail extends TeamCommon {
  kind: 'dispute_opened';
  currency: string;
  amount: number;
  reason: DisputeReason;
  dueBy: string;
}

export interface PayoutFailedMail extends TeamCommon {
  kind: 'payout_failed';
  currency: string;
  amount: number;
  last4: string;
  reason: string | null;
}

export interface EndpointFailingMail extends TeamCommon {
  kind: 'endpoint_failing';
  endpointUrl: string;
  since: string;
}

export type TeamMail = DisputeOpenedMail | PayoutFailedMail | EndpointFailingMail;
type Facts<M extends TeamMail> = Omit<M, keyof TeamCommon | 'kind'>;

export const isTeamMail = (content: { kind: string }): content is TeamMail =>
  content.kind === 'dispute_opened' || content.kind === 'payout_failed' || content.kind === 'endpoint_failing';

/** Queues `kind` about `subjectId` to every member of the environment who wants it. */
async function queueTeamMail<M extends TeamMail>(
  trx: Tx,
  q: { kind: M['kind'] & TeamNotification; environmentId: string; subjectId: string; path: string; facts: Facts<M>; baseUrl: string; now: Date },
): Promise<void> {
  const env = await trx.selectFrom('environments').select(['name', 'time_zone']).where('id', '=', q.environmentId).executeTakeFirstOrThrow();
  for (const member of await recipientsOf(trx, q.environmentId, q.kind)) {
    const common: TeamCommon = {
      language: isLanguage(member.language) ? member.language : 'en',
      merchant: SENDER,
      baseUrl: q.baseUrl,
      environment: env.name,
      timeZone: env.time_zone ?? DEFAULT_TIME_ZONE,
      // Named, so a member looking at another of their environments is offered the switch rather than a 404.
      url: `${q.baseUrl}/dashboard/${q.path}?environment=${q.environmentId}`,
    };
    const content = { kind: q.kind, ...common, ...q.facts };
    await insertMail(trx, { id: uuidv7(q.now.getTime()), environmentId: q.environmentId, kind: q.kind, subjectId: q.subjectId, recipient: member.email, content, now: q.now });
  }
}

/** The changes the team is told of by email: called by the outbox with every change. */
export async function queueTeamMailOf(trx: Tx, type: EventType, objectId: string, baseUrl: string, now: Date): Promise<void> {
  if (type === 'dispute.created') {
    const d = await trx.selectFrom('disputes').selectAll().where('id', '=', objectId).executeTakeFirstOrThrow();
    const facts: Facts<DisputeOpenedMail> = { currency: d.currency, amount: Number(d.amount), reason: d.reason, dueBy: d.evidence_due_by };
    await queueTeamMail(trx, { kind: 'dispute_opened', environmentId: d.environment_id, subjectId: d.id, path: `disputes/${d.id}/`, facts, baseUrl, now });
  } else if (type === 'merchant_payout.failed') {
    const p = await trx.selectFrom('merchant_payouts').selectAll().where('id', '=', objectId).executeTakeFirstOrThrow();
    const facts: Facts<PayoutFailedMail> = { currency: p.currency, amount: Number(p.amount), last4: p.iban.slice(-4), reason: p.failure };
    await queueTeamMail(trx, { kind: 'payout_failed', environmentId: p.environment_id, subjectId: p.id, path: `payouts/${p.id}/`, facts, baseUrl, now });
  }
}

/** An endpoint's failing spell that began at `since` (jobs/endpoint-failing.ts). */
export async function queueEndpointFailing(trx: Tx, e: { id: string; environmentId: string; url: string; since: string }, baseUrl: string, now: Date): Promise<void> {
  const facts: Facts<EndpointFailingMail> = { endpointUrl: e.url, since: e.since };
  await queueTeamMail(trx, { kind: 'endpoint_failing', environmentId: e.environmentId, subjectId: e.id, path: `webhook-endpoints/${e.id}/`, facts, baseUrl, now });
}

/** What a team email says. */
export function teamMailBody(c: TeamMail, t: MailText): MailBody {
  const footer = [t.t('team.footer', { environment: c.environment, settings: `${c.baseUrl}/dashboard/account/notifications/` })];
  const environment = c.environment;
  if (c.kind === 'dispute_opened') {
    const vars = { environment, amount: t.money(c.amount, c.currency), due: t.dateTime(c.dueBy, c.timeZone) };
    return {
      subject: t.t('team.dispute.subject', vars),
      heading: t.t('team.dispute.heading'),
      paragraphs: [t.t('team.dispute.intro', vars)],
      link: { label: t.t('team.dispute.link'), url: c.url },
      rows: [
        { label: t.t('team.amount'), value: vars.amount, strong: true },
        { label: t.t('team.dispute.reason'), value: t.t(`team.reason.${c.reason}`) },
        { label: t.t('team.dispute.due'), value: vars.due },
      ],
      notes: [],
      footer,
    };
  }
  if (c.kind === 'payout_failed') {
    const vars = { environment, amount: t.money(c.amount, c.currency), last4: c.last4 };
    return {
      subject: t.t('team.payout.subject', vars),
      heading: t.t('team.payout.heading'),
      paragraphs: [t.t('team.payout.intro', vars)],
      link: { label: t.t('team.payout.link'), url: c.url },
      rows: [
        { label: t.t('team.amount'), value: vars.amount, strong: true },
        { label: t.t('team.payout.account'), value: `…${c.last4}` },
        { label: t.t('team.payout.reason'), value: c.reason ?? t.t('team.payout.noReason') },
      ],
      notes: [],
      footer,
    };
  }
  const vars = { environment, url: c.endpointUrl, since: t.dateTime(c.since, c.timeZone) };
  return {
    subject: t.t('team.endpoint.subject', vars),
    heading: t.t('team.endpoint.heading'),
    paragraphs: [t.t('team.endpoint.intro', vars)],
    link: { label: t.t('team.endpoint.link'), url: c.url },
    rows: [],
    notes: [],
    footer,
  };
}
