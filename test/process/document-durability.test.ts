import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientBody, documentBody, pdfOfSize } from '../api/documents';
import { ENGINES } from '../api/harness';
import { startServiceProcess, useProcesses } from '../api/process';
import { createShopKeys } from '../shop-keys';

// A document acknowledged with a 201 is on disk: the real service in a child process takes
// several uploads at once and is killed with SIGKILL as soon as the first 201 arrives;
// after a restart on the same data, every acknowledged document gives back its bytes.

const UPLOADS = 6;
const SIZE = 512 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(ENGINES)('document durability on %s', (engine) => {
  const { env, running } = useProcesses(engine, 'checkout-documents-');

  it('keeps every acknowledged document, bytes and all, across a SIGKILL', { timeout: 90_000 }, async () => {
    const keys = await createShopKeys('Durable documents', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const first = await startServiceProcess(env);
    running.push(first);
    const post = async (url: string, path: string, body: unknown) => {
      const res = await fetch(`${url}/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`${res.status} ${text}`);
      return JSON.parse(text) as { id: string; file: { sha256: string } };
    };
    const client = await post(first.url, '/client/', clientBody());
    const base = `/client/${client.id}/document/`;

    // Random bytes after a PDF header: each file is different, and none compresses away.
    const files = Array.from({ length: UPLOADS }, () => {
      const bytes = pdfOfSize(SIZE);
      randomBytes(SIZE - 64).copy(bytes, 64);
      return bytes;
    });
    const acked = new Map<string, string>();
    let killed = false;
    const results = await Promise.allSettled(
      files.map(async (bytes) => {
        const doc = await post(first.url, base, documentBody({ bytes }));
        acked.set(doc.id, sha256(bytes));
        expect(doc.file.sha256).toBe(sha256(bytes));
        if (!killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }),
    );
    expect(await first.exited).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(1);
    // Only requests cut off by the kill may have failed.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(acked.size);

    const second = await startServiceProcess(env);
    running.push(second);
    const get = (path: string) => fetch(`${second.url}/v1${path}`, { headers });
    for (const [id, digest] of acked) {
      const meta = await get(`${base}${id}/`);
      expect(meta.status, id).toBe(200);
      expect(((await meta.json()) as { file: { sha256: string } }).file.sha256).toBe(digest);
      const file = await get(`${base}${id}/file/`);
      expect(file.status, id).toBe(200);
      expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(digest);
    }
    const list = (await (await get(base)).json()) as { count: number };
    expect(list.count).toBeGreaterThanOrEqual(acked.size);
    expect(list.count).toBeLessThanOrEqual(UPLOADS);
    await second.stop();
    expect(await second.exited).toBe(0);
  });
});
