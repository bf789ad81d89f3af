import { renderToString } from 'preact-render-to-string';
import { brandName } from '../../widget/fields/card';
import { htmlLang, intlLocale } from '../../widget/i18n/language';
import { formatQuantity } from '../../widget/i18n/format';
import { accountMailBody, isAccountMail } from './mail-account';
import type { CustomerMail, MailContent } from './mail-content';
import { mailText, type MailText } from './mail-text';
import { isTeamMail, teamMailBody } from './mail-team';

// An email's words, laid out once (a heading, paragraphs, a table of amounts, a footer)
// and written twice: as plain text and as HTML with inline styles only (mail clients drop
// style sheets). Pure: content in, text out.

interface Row {
  label: string;
  value: string;
  strong?: boolean;
}

export interface MailBody {
  subject: string;
  heading: string;
  paragraphs: string[];
  /** The one thing to do, as a button (the dashboard's emails: the link is the point). */
  link?: { label: string; url: string };
  rows: Row[];
  notes: string[];
  footer: string[];
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

const cardName = (brand: string) => brandName(brand) ?? brand;

function footer(c: CustomerMail, t: MailText): string[] {
  const help = c.merchant.supportEmail
    ? t.t('footer.support', { email: c.merchant.supportEmail })
    : t.t('footer.noSupport', { merchant: c.merchant.name });
  return [help, t.t('footer.reference', { id: c.reference })];
}

/** "€9.99 every month", as the sign-up page states it. */
function every(c: { plan: { interval: string; intervalCount: number } }, t: MailText): string {
  return t.page(`subscription.every.${c.plan.interval}` as 'subscription.every.month', { count: c.plan.intervalCount });
}

function mailBody(c: MailContent): MailBody {
  const t = mailText(c.language);
  if (isAccountMail(c)) return accountMailBody(c, t);
  if (isTeamMail(c)) return teamMailBody(c, t);
  const money = (units: number) => t.money(units, c.currency);
  const merchant = c.merchant.name;
  switch (c.kind) {
    case 'payment_receipt': {
      const rows: Row[] = c.lines.map((l) => ({
        label: t.t('receipt.line', { quantity: formatQuantity(l.quantity, intlLocale(t.language)), name: l.name }),
        value: money(l.total),
      }));
      rows.push({ label: t.t('receipt.subtotal'), value: money(c.itemsPrice) });
      if (c.tax) rows.push({ label: c.tax.name ?? t.t('receipt.tax'), value: money(c.tax.value) });
      if (c.shipping) rows.push({ label: c.shipping.name ?? t.t('receipt.shipping'), value: money(c.shipping.value) });
      if (c.coupon) rows.push({ label: c.coupon.name ?? t.t('receipt.discount'), value: `−${money(c.coupon.value)}` });
      rows.push({ label: t.t('receipt.total'), value: money(c.total), strong: true });
      return {
        subject: t.t('receipt.subject', { merchant }),
        heading: t.t('receipt.heading'),
        paragraphs: [
          t.t('receipt.intro', { merchant }),
          ...(c.order ? [t.t('receipt.order', { order: c.order })] : []),
          t.t('receipt.paidOn', { date: t.date(c.paidAt) }),
        ],
        rows,
        notes: c.card ? [t.t('receipt.card', { brand: cardName(c.card.brand), last4: c.card.last4 })] : [],
        footer: footer(c, t),
      };
    }
    case 'refund_receipt':
      return {
        subject: t.t('refund.subject', { merchant }),
        heading: t.t('refund.heading'),
        paragraphs: [t.t('refund.intro', { merchant, amount: money(c.amount) }), ...(c.order ? [t.t('receipt.order', { order: c.order })] : [])],
        rows: [
          { label: t.t('refund.original'), value: money(c.originalTotal) },
          { label: t.t('refund.amount'), value: money(c.amount), strong: true },
          { label: t.t('refund.total'), value: money(c.refundedTotal) },
        ],
        notes: c.card ? [t.t('refund.card', { brand: cardName(c.card.brand), last4: c.card.last4 })] : [],
        footer: footer(c, t),
      };
    case 'signup_confirmation': {
      const amount = money(c.plan.amount);
      return {
        subject: t.t('signup.subject', { plan: c.plan.name, merchant }),
        heading: t.t('signup.heading'),
        paragraphs: [
          t.t('signup.intro', { plan: c.plan.name, merchant, date: t.date(c.signedUpAt) }),
          ...(c.trialDays > 0 ? [t.t('signup.trial', { count: c.trialDays })] : []),
          t.t('signup.terms', { merchant, amount, every: every(c, t) }),
          t.t('signup.firstCharge', { amount, date: t.date(c.firstChargeAt) }),
        ],
        rows: [],
        notes: [...(c.card ? [t.t('signup.card', { brand: cardName(c.card.brand), last4: c.card.last4 })] : []), t.t('signup.cancel')],
        footer: footer(c, t),
      };
    }
    case 'trial_reminder': {
      const amount = money(c.plan.amount);
      const date = t.date(c.firstChargeAt);
      return {
        subject: t.t('reminder.subject', { merchant, date }),
        heading: t.t('reminder.heading'),
        paragraphs: [t.t('reminder.intro', { plan: c.plan.name, merchant, date }), t.t('reminder.charge', { date, amount, every: every(c, t) })],
        rows: [],
        notes: [t.t('reminder.cancel', { date })],
        footer: footer(c, t),
      };
    }
  }
}

function toText(b: MailBody): string {
  const width = Math.max(0, ...b.rows.map((r) => r.label.length));
  const rows = b.rows.map((r) => `${r.label.padEnd(width)}  ${r.value}`);
  const link = b.link ? [`${b.link.label}:`, b.link.url, ''] : [];
  return [b.heading, '', ...b.paragraphs.flatMap((p) => [p, '']), ...link, ...(rows.length ? [...rows, ''] : []), ...b.notes.flatMap((n) => [n, '']), '--', ...b.footer, ''].join('\n');
}

const FONT = 'font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1a1a1a;';

function Html({ body, lang }: { body: MailBody; lang: string }) {
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width" />
        <title>{body.subject}</title>
      </head>
      <body style={`margin:0;padding:24px;background:#f5f5f5;${FONT}`}>
        <main style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px">
          <h1 style="font-size:22px;margin:0 0 16px">{body.heading}</h1>
          {body.paragraphs.map((p) => (
            <p style="margin:0 0 12px;line-height:1.5">{p}</p>
          ))}
          {body.link && (
            <p style="margin:20px 0">
              <a href={body.link.url} style="display:inline-block;padding:12px 20px;background:#1a1a1a;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">
                {body.link.label}
              </a>
            </p>
          )}
          {body.link && <p style="margin:0 0 12px;font-size:13px;color:#555555;word-break:break-all">{body.link.url}</p>}
          {body.rows.length > 0 && (
            <table role="presentation" style="width:100%;border-collapse:collapse;margin:16px 0">
              <tbody>
                {body.rows.map((r) => (
                  <tr style={r.strong ? 'font-weight:700;border-top:1px solid #d0d0d0' : undefined}>
                    <td style="padding:6px 0">{r.label}</td>
                    <td style="padding:6px 0;text-align:right;white-space:nowrap">{r.value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {body.notes.map((n) => (
            <p style="margin:0 0 12px;line-height:1.5">{n}</p>
          ))}
          <hr style="border:0;border-top:1px solid #d0d0d0;margin:20px 0" />
          {body.footer.map((f) => (
            <p style="margin:0 0 6px;font-size:13px;color:#555555">{f}</p>
          ))}
        </main>
      </body>
    </html>
  );
}

/** The email for `content`: its subject, a plain-text part and an HTML part. */
export function composeMail(content: MailContent): ComposedMail {
  const body = mailBody(content);
  return { subject: body.subject, text: toText(body), html: `<!doctype html>${renderToString(<Html body={body} lang={htmlLang(content.language)} />)}` };
}
