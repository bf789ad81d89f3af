import type { Language } from '../../widget/i18n/language';
import { maskedIban } from '../../widget/fields/iban';
import type { PayoutSchedule } from '../domain/merchant-payouts';
import { uuidv7 } from '../domain/ids';
import type { PayoutAccountMail } from '../notify/mail-payout-account';
import { recordAudit } from '../store/audit';
import { type Db, inTransaction, type Tx } from '../store/db';
import { findEnvironment } from '../store/environments';
import { insertMail } from '../store/mails';
import { type PayoutSettings, payoutSettingsOf, setPayoutSettings } from '../store/merchant-payouts';
import { endPayoutAccountLinks } from '../store/payout-account-links';
import { membersOf } from '../store/users';

// Changing where and when the balance is paid out (docs/balance.md "A new bank account is
// held"), the one use case PATCH /v1/payout_settings/ and the dashboard's Balance form both
// call. A new IBAN replacing one already set holds every payout of the environment for
// 72 hours, or until an owner confirms it from the email: someone who took over a session
// or a secret key cannot send the next payout to their own account at once. A first IBAN is
// not held (no payout went anywhere before it). Every change is audited and mailed to
// every owner; a schedule or holder change applies at once.

/** How long a new bank account holds the payouts unless an owner confirms it. */
export const PAYOUT_HOLD_MS = 72 * 3600_000;

export interface PayoutSettingsChange {
  iban?: string;
  account_holder_name?: string;
  schedule?: PayoutSchedule;
}

/** Who asks: a member signed in to the dashboard, a secret key or the keys CLI (no user). */
export interface PayoutSettingsActor {
  userId: string | null;
  /** The member's email, or how the API is named in the owners' email. */
  who: string;
  ip: string | null;
  /** The dashboard's address for the confirm link, and the owners' emails' language. */
  baseUrl: string;
  language: Language;
  /** For the audit log, without a member: the person named (the keys CLI's `--by`), and more of who asked (the account that ran it). */
  email?: string | null;
  detail?: Record<string, string>;
}

export type PayoutSettingsOutcome = { ok: true; settings: PayoutSettings } | { ok: false; reason: 'schedule_needs_iban'; schedule: 'daily' | 'weekly' };

const masked = (iban: string | null) => (iban ? maskedIban(iban) : null);

export async function changePayoutSettings(db: Db, deps: { now(): Date }, environmentId: string, change: PayoutSettingsChange, by: PayoutSettingsActor): Promise<PayoutSettingsOutcome> {
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    const before = await payoutSettingsOf(trx, environmentId);
    const next = { iban: change.iban ?? before.iban, schedule: change.schedule ?? before.schedule, account_holder_name: change.account_holder_name ?? before.account_holder_name };
    if (next.schedule !== 'manual' && !next.iban) return { ok: false, reason: 'schedule_needs_iban', schedule: next.schedule };
    const newAccount = before.iban !== null && next.iban !== before.iban;
    const heldUntil = newAccount ? new Date(now.getTime() + PAYOUT_HOLD_MS).toISOString() : null;
    // A newer account's links replace the older's: confirming the older must not release the newer.
    if (newAccount) await endPayoutAccountLinks(trx, environmentId);
    const settings = await setPayoutSettings(trx, environmentId, newAccount ? { ...next, payouts_held_until: heldUntil } : next, now);
    const changed = next.iban !== before.iban || next.schedule !== before.schedule || next.account_holder_name !== before.account_holder_name;
    if (!changed) return { ok: true, settings };
    const detail = { old_iban: masked(before.iban), new_iban: masked(next.iban), old_schedule: before.schedule, new_schedule: next.schedule, held_until: heldUntil };
    await recordAudit(trx, { environmentId, userId: by.userId, email: by.userId ? by.who : (by.email ?? null), action: 'payout_settings_changed', detail: { ...by.detail, ...detail }, ip: by.ip }, now);
    await mailOwners(trx, environmentId, { by: by.who, at: now.toISOString(), oldIban: detail.old_iban, newIban: detail.new_iban, schedule: next.schedule, heldUntil, baseUrl: by.baseUrl, language: by.language }, now);
    return { ok: true, settings };
  });
}

type Notice = Pick<PayoutAccountMail, 'by' | 'at' | 'oldIban' | 'newIban' | 'schedule' | 'heldUntil' | 'baseUrl' | 'language'>;

/** The notice, queued to every owner of the environment (each email's link made when it is sent). */
async function mailOwners(trx: Tx, environmentId: string, notice: Notice, now: Date): Promise<void> {
  const environment = (await findEnvironment(trx, environmentId))?.name ?? environmentId;
  const owners = (await membersOf(trx, environmentId)).filter((m) => m.role === 'owner');
  for (const owner of owners) {
    const content: PayoutAccountMail = { kind: 'payout_account_changed', merchant: { name: environment, supportEmail: null }, ...notice, environmentId, environment, email: owner.email, userId: owner.id };
    await insertMail(trx, { id: uuidv7(now.getTime()), environmentId, kind: content.kind, subjectId: owner.id, recipient: owner.email, content, now });
  }
}
