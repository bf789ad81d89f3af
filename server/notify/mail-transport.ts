import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

// Where emails go: an SMTP server (SMTP_URL, through nodemailer), or, without one, files in
// DATA_DIR/outbox/ (one `.eml` per email, the exact message an SMTP server would receive),
// so development needs no mail server and a developer can open what a customer would get.

export interface OutgoingMail {
  /** The change's event id: the Message-ID, so a resend is recognisably the same email. */
  id: string;
  from: { name: string; address: string };
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  language: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface TransportOptions {
  smtpUrl: string | null;
  dataDir: string;
  /** Bounds one SMTP conversation, as GATEWAY_TIMEOUT_MS bounds a gateway call. */
  timeoutMs: number;
}

function message(m: OutgoingMail) {
  const domain = m.from.address.slice(m.from.address.lastIndexOf('@') + 1);
  return {
    messageId: `<${m.id}@${domain}>`,
    from: m.from,
    to: m.to,
    ...(m.replyTo ? { replyTo: m.replyTo } : {}),
    subject: m.subject,
    text: m.text,
    html: m.html,
    headers: { 'Content-Language': m.language, 'Auto-Submitted': 'auto-generated' },
  };
}

export function createMailTransport(o: TransportOptions): MailTransport {
  if (o.smtpUrl) {
    const smtp = nodemailer.createTransport({ url: o.smtpUrl, connectionTimeout: o.timeoutMs, greetingTimeout: o.timeoutMs, socketTimeout: o.timeoutMs });
    return {
      send: async (m) => void (await smtp.sendMail(message(m))),
      close: () => smtp.close(),
    };
  }
  const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const dir = join(o.dataDir, 'outbox');
  return {
    async send(m) {
      const { message: bytes } = (await files.sendMail(message(m))) as { message: Buffer };
      await mkdir(dir, { recursive: true });
      // Written whole, then renamed: a reader never sees half an email.
      const path = join(dir, `${m.id}.eml`);
      await writeFile(`${path}.tmp`, bytes);
      await rename(`${path}.tmp`, path);
    },
    close: () => files.close(),
  };
}
