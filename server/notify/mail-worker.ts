import type { Logger } from 'pino';
import type { Db } from '../store/db';
import { claimDueMails, recordMailAttempt } from '../store/mails';
import type { MailRow } from '../store/schema';
import { isAccountMail, withLink } from './mail-account';
import { composeMail } from './mail-compose';
import type { MailContent } from './mail-content';
import type { MailTransport } from './mail-transport';
import { retryAt } from './worker';

// Emails (customers', and the dashboard's own), one of the service's jobs: claims due
// emails in the database (any number of processes side by side), composes each in its
// language (a dashboard email's link made now: mail-account.ts) and sends it; a failure
// is retried on the webhooks' schedule. At least once: a process that dies after the
// server took an email and before it was recorded sends it again, with the same
// Message-ID. Logs carry the email's id and kind, never its address or words.

export interface MailDeliveryOptions {
  db: Db;
  now: () => Date;
  transport: MailTransport;
  from: string;
  /** Bounds one send, so a live worker never loses its claim. */
  timeoutMs: number;
  random?: () => number;
}

/** One round: claims up to `batch` due emails and sends each, logging through the round's logger. */
export function createMailDelivery(o: MailDeliveryOptions): (batch: number, round: { readonly log: Logger }) => Promise<number> {
  const random = o.random ?? Math.random;
  const leaseMs = o.timeoutMs * 6;

  async function attempt(mail: MailRow, log: Logger): Promise<void> {
    const queued = JSON.parse(mail.content!) as MailContent;
    const content = isAccountMail(queued) ? await withLink(o.db, queued, o.now()) : queued;
    const composed = composeMail(content);
    try {
      await o.transport.send({
        id: mail.id,
        from: { name: content.merchant.name, address: o.from },
        to: mail.recipient!,
        replyTo: content.merchant.supportEmail,
        language: content.language,
        ...composed,
      });
    } catch (err) {
      const error = err instanceof Error ? err.message.slice(0, 200) : 'send failed';
      const next = retryAt(mail.attempt_count + 1, o.now(), random);
      await recordMailAttempt(o.db, mail, { sent: false, error, retryAt: next }, o.now());
      log.warn({ mail: mail.id, kind: mail.kind, attempt: mail.attempt_count + 1, gaveUp: next === null }, 'email not sent');
      return;
    }
    await recordMailAttempt(o.db, mail, { sent: true }, o.now());
    log.info({ mail: mail.id, kind: mail.kind, attempt: mail.attempt_count + 1 }, 'email sent');
  }

  return async (batch, round) => {
    const mails = await claimDueMails(o.db, o.now(), leaseMs, batch);
    await Promise.all(mails.map((mail) => attempt(mail, round.log)));
    return mails.length;
  };
}
