import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { ENGINES } from '../api/harness';
import { pageCsrf, payWithCard, priced, screenPost } from '../api/pay';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';

// The sandbox's sessions (migration 143): two service processes on one database, as behind
// a load balancer (docs/operations.md "High availability"), a customer's steps landing on
// either. With database books a redirect started on A and returned to B, and a challenge
// asked on A and answered on B, pay once; with memory books the return B cannot verify
// charges nothing, as before (the fault matrix relies on it).

const SANDBOX_REDIRECT = '0190f5a0-0000-7000-8000-000000000002';
const FORM = 'application/x-www-form-urlencoded';

const { environment, started } = processScope();

/** A form of the sandbox's page: where it posts and what. */
type PageForm = { action: string; fields: Record<string, string> };

async function pageForms(url: string): Promise<PageForm[]> {
  const page = await fetch(url, { redirect: 'manual' });
  if (page.status !== 200) return [];
  const html = await page.text();
  return [...html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/g)].map(([, action, inner]) => ({
    action: action!.replaceAll('&amp;', '&'),
    fields: Object.fromEntries([...inner!.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, n, v]) => [n!, v!])),
  }));
}

/** `url` on `origin`: the same step sent to another process. */
const on = (origin: string, url: string) => new URL(new URL(url).pathname + new URL(url).search, origin).href;

describe.each(ENGINES)('the sandbox sessions across processes on %s', (engine) => {
  async function twoProcesses(books: 'database' | 'memory') {
    const env = await environment(engine, { SANDBOX_BOOKS: books });
    const keys = await createShopKeys('Sessions shop', env);
    const [a, b] = [await started(env), await started(env)];
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const api = async (path: string, init: RequestInit = {}) => (await fetch(`${a.url}/v1${path}`, { ...init, headers })).json() as Promise<Record<string, any>>;
    const open = async (over: Record<string, unknown> = {}) => (await api('/transaction/', { method: 'POST', body: JSON.stringify(priced('EUR', 42, { return_url: 'https://shop.example/return', ...over })) })) as { id: string; token: string };
    const status = async (id: string) => (await api(`/transaction/${id}/`)).status as string;
    const sales = async (id: string) => (await api(`/sale/?transaction_id=${id}`)).count as number;
    return { a, b, open, status, sales };
  }

  /** The redirect started on A: the sandbox's page (as A serves it) and its URL. */
  async function redirectOn(url: string, token: string) {
    const csrf = await pageCsrf(url, token);
    const started = await fetch(`${url}/pay/${token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: url },
      body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_REDIRECT, csrf }),
    });
    expect(started.status).toBe(303);
    const page = started.headers.get('location')!;
    const [approve] = await pageForms(page);
    expect(approve?.fields.sandbox_result).toBe('approve');
    return { page, approve: approve! };
  }

  const post = (form: PageForm, action: string) => fetch(action, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: new URLSearchParams(form.fields) });

  it('a redirect started on A, its page shown by B and its return sent to B, pays once (database books)', { timeout: 60_000 }, async () => {
    const s = await twoProcesses('database');
    const tx = await s.open({ gateway_selected: false });
    const { page, approve } = await redirectOn(s.a.url, tx.token);
    expect(await pageForms(on(s.b.url, page))).toHaveLength(2);

    const back = await post(approve, on(s.b.url, approve.action));
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return\?.*status=D/);
    expect(await s.status(tx.id)).toBe('D');
    expect(await s.sales(tx.id)).toBe(1);
  });

  it('a 3-D Secure challenge asked on A and answered on B pays once (database books)', { timeout: 60_000 }, async () => {
    const s = await twoProcesses('database');
    const tx = await s.open();
    const asked = (await (await payWithCard(s.a.url, tx.token, TEST_CARDS.challenged)).json()) as { outcome: string; kind: string; location: string };
    expect(asked).toMatchObject({ outcome: 'redirect', kind: 'challenge' });

    const answered = await screenPost(s.b.url, tx.token, asked.location, { answer: 'completed' });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ outcome: 'redirect', kind: 'completed', view: { status: 'paid' } });
    expect(await s.status(tx.id)).toBe('D');
    expect(await s.sales(tx.id)).toBe(1);
  });

  it('with memory books a return B cannot verify charges nothing, as before', { timeout: 60_000 }, async () => {
    const s = await twoProcesses('memory');
    const tx = await s.open({ gateway_selected: false });
    const { page, approve } = await redirectOn(s.a.url, tx.token);
    expect(await pageForms(on(s.b.url, page))).toEqual([]);

    await (await post(approve, on(s.b.url, approve.action))).arrayBuffer();
    expect(await s.status(tx.id)).toBe('N');
    expect(await s.sales(tx.id)).toBe(0);
  });
});
