import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A merchant's webhook endpoint for tests: records every request and answers with the
// next scripted status (then 200), with a body of the test's when it gives one, or not at
// all ('hang').

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body, for convenience. */
  payload: { id: string; type: string; created: string; data: any };
}

export type Answer = number | 'hang' | { status: number; body: string };

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; afterwards 200. */
  script(...answers: Answer[]): void;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `delayMs`: how long each answer takes, like a receiver doing some work. */
export async function startReceiver(opts: { delayMs?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let answers: Answer[] = [];
  const hanging: ServerResponse[] = [];
  // Waiters woken by each arrival (not by polling a timer).
  let arrived: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, payload: JSON.parse(body) });
      for (const wake of arrived.splice(0)) wake();
      const next = answers.shift() ?? 200;
      if (next === 'hang') return void hanging.push(res);
      const answer = typeof next === 'number' ? { status: next, body: `answer ${next}` } : next;
      if (answer.status >= 300 && answer.status < 400) res.setHeader('location', 'https://elsewhere.example/');
      setTimeout(() => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body), opts.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    script: (...next) => void (answers = next),
    waitFor(n, timeoutMs = 20_000) {
      return new Promise<Received[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          arrived = arrived.filter((w) => w !== check);
          reject(new Error(`expected ${n} requests, got ${received.length}`));
        }, timeoutMs);
        const check = () => {
          if (received.length < n) return void arrived.push(check);
          clearTimeout(timer);
          resolve(received);
        };
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
