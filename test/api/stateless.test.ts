import { describe, expect, it } from 'vitest';
import { ENGINES, startTestService, transactionBody } from './harness';

// Nothing sticky: the payment page served by one process is paid through another with the
// CSRF token the first one gave (both sign with the server secret kept in the database;
// the subscription sign-up form uses the same one).

describe.each(ENGINES)('two processes on one %s database', (engine) => {
  it('the CSRF token of a page from one process is good for a pay POST to the other', async () => {
    const a = await startTestService(engine);
    const b = await startTestService(engine, { env: engine === 'sqlite' ? { DATA_DIR: a.dataDir } : {} });
    try {
      const api = await a.newEnvironment('Stateless shop');
      const created = await api.post('/transaction/', transactionBody());
      const html = await (await fetch(`${a.url}/pay/${created.body.token}/`)).text();
      const csrf = (JSON.parse(/<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!) as { view: { csrf: string } }).view.csrf;
      const post = (csrfToken: string) =>
        fetch(`${b.url}/pay/${created.body.token}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
          body: JSON.stringify({ action: 'pay', gateway: '0190f5a0-0000-7000-8000-000000000001', fields: { card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123', card_name: 'A' } }),
        });
      expect((await post(`${csrf}x`)).status).toBe(403);
      expect((await post(csrf)).status).toBe(200);
      expect((await api.get(`/transaction/${created.body.id}/`)).body.status).toBe('D');
    } finally {
      await b.close();
      await a.close();
    }
  });
});
