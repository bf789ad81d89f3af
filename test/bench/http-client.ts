import { Agent, request } from 'node:http';

// The end-to-end bench's HTTP client: node:http over kept-alive connections. The bench runs
// on the two cores it measures, and fetch (undici) cost it 0.46 ms of CPU a request against
// 0.12 ms for node:http (3,000 small POSTs, 8 at a time, to a local server; the bench's
// requests are the same few kinds), CPU the service then did not have.

// A timeout, so that the agent heeds the service's `Keep-Alive: timeout=5` and ends a free
// connection a second before the service does: with none, Node's agent ignores the hint,
// and a request sent on a connection the service was closing failed with ECONNRESET (the
// warm-up of two processes, 4 runs in 10 on 7 December). Active requests never come near it.
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 60_000 });

export interface Answer {
  status: number;
  text: string;
}

/** `method url` with `headers` and `body`; the answer's status and body as text. */
export function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
