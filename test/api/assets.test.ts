import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startTestService, type TestService, transactionBody } from './harness';

// The built scripts, styles and the widget loader, as a browser fetches them: compressed
// when it accepts it (its own preference first), always the same bytes once decoded, never
// one client's encoding served to another by a cache (Vary), and cached as before.

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * node:http, not fetch: fetch decodes by itself, and the test is about the bytes on the wire.
 * A connection of its own each time: a kept-alive one idle past the server's keep-alive
 * timeout (a slow test before, a loaded machine) can be closed just as it is reused.
 */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('static files', () => {
  let t: TestService;
  let api: Client;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestService('sqlite');
    api = await t.newEnvironment('Assets Shop');
    const created = await api.post('/transaction/', transactionBody());
    const html = (await get(`${t.url}/pay/${created.body.token}/`)).body.toString();
    files.script = /<script type="module"[^>]* src="([^"]+)"/.exec(html)![1]!;
    files.stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(html)![1]!;
    files.widget = '/widget.js';
  });
  afterAll(() => t?.close());

  it.each(['script', 'stylesheet', 'widget'])('the %s: br or gzip as accepted, the same bytes once decoded', async (file) => {
    const url = `${t.url}${files[file]}`;
    const plain = await get(url);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(plain.body.length).toBeGreaterThan(500);

    const br = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body)).toEqual(plain.body);
    expect(br.body.length).toBeLessThan(plain.body.length * 0.6);

    const gzip = await get(url, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body)).toEqual(plain.body);

    // The client's own preference comes first; refusing both leaves the plain file.
    expect((await get(url, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(url, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();

    for (const r of [plain, br, gzip]) {
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(r.headers['cache-control']).toBe(plain.headers['cache-control']);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    expect((await get(url, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string })).status).toBe(304);
    const head = await get(url, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('br');
  });

  it('the API reference answers its first reader at once, plain, and compressed once the background has made it', async () => {
    const url = `${t.url}/docs/`;
    const accepts = { 'accept-encoding': 'gzip, deflate, br' };
    const first = await get(url, accepts);
    expect(first.status).toBe(200);
    // Sent in the tick that rendered it: the compression cannot have finished yet.
    expect(first.headers['content-encoding']).toBeUndefined();
    // Compressing 340 KB at the strongest settings takes the thread pool about half a second.
    await expect.poll(async () => (await get(url, accepts)).headers['content-encoding'], { timeout: 20_000, interval: 100 }).toBe('br');
    const br = await get(url, accepts);
    const gzip = await get(url, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body)).toEqual(brotliDecompressSync(br.body));
    expect(brotliDecompressSync(br.body)).toEqual(first.body);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
  });

  it('hashed assets are cached for a year and typed; unknown ones are 404', async () => {
    const script = await get(`${t.url}${files.script}`, { 'accept-encoding': 'br' });
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get(`${t.url}${files.stylesheet}`)).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get(`${t.url}/assets/client-nothere.js`, { 'accept-encoding': 'br' })).status).toBe(404);
    expect((await get(`${t.url}/assets/..%2Fwidget%2Fwidget.js`)).status).toBe(404);
  });
});
