import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { inviteUser } from '../../server/dashboard/accounts';
import { JOB_NAMES } from '../../server/jobs';
import type { Role } from '../../server/store/schema';
import type { Client, TestService } from './harness';

// A browser's part in dashboard tests, over real HTTP: a cookie jar, forms posted
// urlencoded, the CSRF field read from the page as a browser would submit it.

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  /** Where a redirect goes. */
  location: string | null;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** The last page's CSRF field. */
  csrf = '';

  constructor(
    readonly url: string,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  private headers(more: Record<string, string> = {}): Record<string, string> {
    const jar = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { ...this.extraHeaders, ...(jar ? { cookie: jar } : {}), ...more };
  }

  private async take(res: Response): Promise<Page> {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attrs.some((a) => /^\s*max-age=0$/i.test(a)) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  async get(path: string, headers?: Record<string, string>): Promise<Page> {
    return this.take(await fetch(`${this.url}${path}`, { headers: this.headers(headers), redirect: 'manual' }));
  }

  /** A form post from our own page (a list: the field repeated, as checkboxes send it); `csrf: null` leaves the token out. */
  async post(path: string, form: Record<string, string | string[]>, opts: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<Page> {
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    const fields = Object.entries({ ...(csrf === null ? {} : { csrf }), ...form }).flatMap(([k, v]) => (Array.isArray(v) ? v.map((one) => [k, one]) : [[k, v]]));
    const body = new URLSearchParams(fields);
    const headers = this.headers({ 'content-type': 'application/x-www-form-urlencoded', origin: this.url, 'sec-fetch-site': 'same-origin', ...opts.headers });
    return this.take(await fetch(`${this.url}${path}`, { method: 'POST', headers, body, redirect: 'manual' }));
  }

  /** A multipart form (a file upload) from our own page, its CSRF field first as the page's form has it; `csrf: null` leaves it out. */
  async postMultipart(path: string, form: FormData, opts: { csrf?: string | null } = {}): Promise<Page> {
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    const body = new FormData();
    if (csrf !== null) body.append('csrf', csrf);
    for (const [k, v] of form) body.append(k, v);
    const headers = this.headers({ origin: this.url, 'sec-fetch-site': 'same-origin' });
    return this.take(await fetch(`${this.url}${path}`, { method: 'POST', headers, body, redirect: 'manual' }));
  }

  async signIn(email: string, password: string): Promise<Page> {
    await this.get('/dashboard/sign-in/');
    return this.post('/dashboard/sign-in/', { email, password });
  }
}

export const PASSWORD = 'correct horse battery staple';

let serial = 0;
/** An email no other test (nor an earlier run on the shared PostgreSQL database) has used. */
export const uniqueEmail = (who = 'user') => `${who}.${Date.now().toString(36)}.${++serial}.${Math.random().toString(36).slice(2, 8)}@shop.example`;

/** A member of `env` with a password, signed in on a new browser. */
export async function member(t: TestService, env: Client, role: Role, extraHeaders: Record<string, string> = {}): Promise<{ browser: Browser; email: string }> {
  const email = uniqueEmail(role);
  const { token } = await inviteUser(t.service.deps.database.db, { email, environmentId: env.keys.environment_id, role, invitedBy: null, now: t.service.deps.now() });
  const browser = new Browser(t.url, extraHeaders);
  await browser.get(`/dashboard/invite/${token}/`);
  const done = await browser.post(`/dashboard/invite/${token}/`, { password: PASSWORD });
  if (done.status !== 303) throw new Error(`invite for ${role}: ${done.status} ${done.text.slice(0, 300)}`);
  // As a browser would: the first signed-in page, whose forms carry the session's token.
  await browser.get('/dashboard/');
  return { browser, email };
}

/** A new client IP per call, so throttling tests do not share counters (X-Forwarded-For under TRUST_PROXY). */
export const freshIp = () => `10.${(serial = serial + 1) % 250}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/**
 * The emails to `to`, oldest first, as the service wrote them to DATA_DIR/outbox/ (no
 * SMTP_URL) once its mail job has sent every due one: what the person would find in their inbox.
 */
export async function inbox(t: TestService, to: string): Promise<ParsedMail[]> {
  // Every round until none is left: on PostgreSQL the files share a database, and other
  // files' emails, due earlier, may fill a round's batch.
  while ((await t.service.jobs.runOnce(JOB_NAMES.mail)) > 0);
  const dir = join(t.dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  // Named by the email's id, a UUIDv7: in the order they were queued.
  const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  const mails = await Promise.all(files.map((f) => simpleParser(readFileSync(join(dir, f)))));
  return mails.filter((m) => m.to && !Array.isArray(m.to) && m.to.value[0]?.address === to);
}

/** The one link of a kind in an email's text, as a path to open (`/dashboard/…`). */
export function linkIn(mail: ParsedMail, kind: 'reset' | 'invite'): string {
  const pattern = kind === 'reset' ? /https?:\/\/\S+\/dashboard\/sign-in\/reset\/\?token=[A-Za-z0-9_-]{43}/g : /https?:\/\/\S+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\//g;
  const links = [...new Set(String(mail.text).match(pattern))];
  if (links.length !== 1) throw new Error(`${kind} links in the email: ${links.length}`);
  const url = new URL(links[0]!);
  return `${url.pathname}${url.search}`;
}
