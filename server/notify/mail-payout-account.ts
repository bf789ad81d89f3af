import { hashToken, newSecret } from '../domain/account-tokens';
import type { Db } from '../store/db';
import { createPayoutAccountLink } from '../store/payout-account-links';
import type { PayoutSchedule } from '../domain/merchant-payouts';
import type { MailBody } from './mail-compose';
import type { AccountCommon } from './mail-account';
import type { MailText } from './mail-text';

// The email every owner of an environment gets when its payout bank account or schedule
// changes (docs/balance.md "A new bank account is held"): who, when, the accounts masked,
// and while a new account holds the payouts, a one-time link to confirm it. The link is
// made when the email is sent, as the other dashboard emails' are: no usable token is
// ever stored, only its SHA-256.

export interface PayoutAccountMail extends AccountCommon {
  kind: 'payout_account_changed';
  environmentId: string;
  environment: string;
  /** Who changed it: a member's email, or the API. */
  by: string;
  at: string;
  /** Masked (`ES…1332`); null: none. */
  oldIban: string | null;
  newIban: string | null;
  schedule: PayoutSchedule;
  /** The hold of a new account; null: none (a schedule or holder changed, or a first account). */
  heldUntil: string | null;
}

/** The path of a confirm link, under the dashboard. */
const payoutAccountConfirmPath = (token: string) => `/dashboard/balance/bank-account/confirm/${token}/`;

/** The content with its confirm link, made now, when the email tells of a hold. */
export async function withPayoutAccountLink(db: Db, content: PayoutAccountMail, now: Date): Promise<PayoutAccountMail> {
  if (!content.heldUntil) return content;
  const token = newSecret();
  await createPayoutAccountLink(db, { token_hash: hashToken(token), environment_id: content.environmentId, held_until: content.heldUntil, created_at: now.toISOString() });
  return { ...content, url: `${content.baseUrl}${payoutAccountConfirmPath(token)}` };
}

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function payoutAccountMailBody(c: PayoutAccountMail, t: MailText, footer: string[]): MailBody {
  const none = t.t('account.payout.none');
  const rows = [
    { label: t.t('account.payout.old'), value: c.oldIban ?? none },
    { label: t.t('account.payout.new'), value: c.newIban ?? none, strong: true },
    { label: t.t('account.payout.schedule'), value: t.t(`account.payout.schedule.${c.schedule}`) },
  ];
  const vars = { environment: c.environment, by: c.by, at: utc(c.at) };
  return {
    subject: t.t('account.payout.subject', vars),
    heading: t.t('account.payout.heading', vars),
    paragraphs: [t.t('account.payout.intro', vars), ...(c.heldUntil ? [t.t('account.payout.held', { until: utc(c.heldUntil) })] : [])],
    ...(c.url ? { link: { label: t.t('account.payout.link'), url: c.url } } : {}),
    rows,
    notes: [t.t('account.payout.notYou')],
    footer,
  };
}
