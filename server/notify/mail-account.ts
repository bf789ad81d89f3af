import type { Language } from '../../widget/i18n/language';
import { hashToken, newSecret } from '../domain/account-tokens';
import { uuidv7 } from '../domain/ids';
import { inTransaction, type Db } from '../store/db';
import { insertMail } from '../store/mails';
import { createPasswordReset } from '../store/password-resets';
import type { Role } from '../store/schema';
import { createInvite } from '../store/users';
import type { Merchant } from './mail-content';
import type { MailBody } from './mail-compose';
import { type PayoutAccountMail, payoutAccountMailBody, withPayoutAccountLink } from './mail-payout-account';
import type { MailText } from './mail-text';

// The dashboard's own emails: a password reset link, an invite, and a changed payout account's notice (mail-payout-account.ts). They ride the customers'
// mail queue, with one difference: the link is made when the email is sent, not when it is
// queued, so no usable token is ever stored, not even in a queued email's content (only
// its SHA-256, as for every dashboard token). A resend after a failure makes a new link.

/** A reset link works this long after it is sent. */
export const RESET_TTL_MS = 3600_000;
/** An emailed invite works as long as one shown on screen. */
const INVITE_TTL_MS = 24 * 3600_000;
/** The sender's name: these come from the service, not from a merchant. */
const SENDER: Merchant = { name: 'Payments dashboard', supportEmail: null };

export interface AccountCommon {
  language: Language;
  merchant: Merchant;
  /** The dashboard's address, as the request that queued it reached the service. */
  baseUrl: string;
  email: string;
  userId: string;
  /** Made when the email is sent (withLink). */
  url?: string;
}

export interface PasswordResetMail extends AccountCommon {
  kind: 'password_reset';
}

export interface InviteMail extends AccountCommon {
  kind: 'dashboard_invite';
  environmentId: string;
  environment: string;
  role: Role;
  /** Who invited (their email) and their user id. */
  inviter: string;
  invitedBy: string;
}

export type AccountMail = PasswordResetMail | InviteMail | PayoutAccountMail;

export const isAccountMail = (content: { kind: string }): content is AccountMail => 
  content.kind === 'password_reset' || content.kind === 'dashboard_invite' || content.kind === 'payout_account_changed';

/** Queues a reset link for a user; `environmentId` files it (the mail queue's rows belong to an environment). */
export async function queuePasswordReset(db: Db, m: { userId: string; email: string; environmentId: string; language: Language; baseUrl: string; now: Date }): Promise<void> {
  const content: PasswordResetMail = { kind: 'password_reset', language: m.language, merchant: SENDER, baseUrl: m.baseUrl, email: m.email, userId: m.userId };
  await inTransaction(db, (trx) =>
    insertMail(trx, { id: uuidv7(m.now.getTime()), environmentId: m.environmentId, kind: content.kind, subjectId: m.userId, recipient: m.email, content, now: m.now }),
  );
}

/** Queues an owner's invite to its address: the emailed link is the one that may set a first password. */
export async function queueInviteMail(db: Db, m: Omit<InviteMail, 'kind' | 'merchant' | 'url'> & { now: Date }): Promise<void> {
  const { now, ...rest } = m;
  const content: InviteMail = { kind: 'dashboard_invite', merchant: { name: m.environment, supportEmail: null }, ...rest };
  await inTransaction(db, (trx) =>
    insertMail(trx, { id: uuidv7(now.getTime()), environmentId: m.environmentId, kind: content.kind, subjectId: m.userId, recipient: m.email, content, now }),
  );
}

/** The content with its link, made now: a reset link, or an invite whose link proves the email. */
export async function withLink(db: Db, content: AccountMail, now: Date): Promise<AccountMail> {
  if (content.kind === 'payout_account_changed') return withPayoutAccountLink(db, content, now);
  const token = newSecret();
  if (content.kind === 'password_reset') {
    const expires = new Date(now.getTime() + RESET_TTL_MS).toISOString();
    await createPasswordReset(db, { token_hash: hashToken(token), user_id: content.userId, expires_at: expires, created_at: now.toISOString() });
    return { ...content, url: `${content.baseUrl}/dashboard/sign-in/reset/?token=${token}` };
  }
  const expires = new Date(now.getTime() + INVITE_TTL_MS).toISOString();
  await createInvite(
    db,
    { token_hash: hashToken(token), user_id: content.userId, environment_id: content.environmentId, role: content.role, expires_at: expires, created_by: content.invitedBy, proves_email: 1 },
    now,
  );
  return { ...content, url: `${content.baseUrl}/dashboard/invite/${token}/` };
}

/** What an account email says. */
export function accountMailBody(c: AccountMail, t: MailText): MailBody {
  const footer = [t.t('account.footer', { site: `${c.baseUrl}/dashboard/` })];
  if (c.kind === 'payout_account_changed') return payoutAccountMailBody(c, t, footer);
  if (c.kind === 'password_reset') {
    return {
      subject: t.t('account.reset.subject'),
      heading: t.t('account.reset.heading'),
      paragraphs: [t.t('account.reset.intro', { email: c.email })],
      link: { label: t.t('account.reset.link'), url: c.url! },
      rows: [],
      notes: [t.t('account.reset.expiry'), t.t('account.reset.ignore')],
      footer,
    };
  }
  const vars = { inviter: c.inviter, environment: c.environment, role: t.t(`account.role.${c.role}`) };
  return {
    subject: t.t('account.invite.subject', vars),
    heading: t.t('account.invite.heading', vars),
    paragraphs: [t.t('account.invite.intro', vars)],
    link: { label: t.t('account.invite.link'), url: c.url! },
    rows: [],
    notes: [t.t('account.invite.expiry'), t.t('account.invite.ignore')],
    footer,
  };
}
