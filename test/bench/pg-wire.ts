import { connect, createServer, type Server, type Socket } from 'node:net';

// Statements counted on the wire, for when pg_stat_statements is not loaded (it needs
// shared_preload_libraries, so a restart of a server others share). A TCP proxy in the
// harness process between the service and PostgreSQL reads the frontend's messages:
// each simple Query ('Q') and each extended-protocol Execute ('E') is one statement run;
// each Query and each Sync ('S') asks for a ReadyForQuery, and a round trip is counted when the
// client sends one with every ReadyForQuery it asked for already answered (one sent behind an
// unanswered one, pipelined, waits for no answer of its own). A simple
// query whose text is BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE is counted as
// transaction control too (pg_stat_statements counts those as statements: track_utility).
// The proxy costs the harness CPU and every round trip a hop, so the runs measured through
// it are for counting only, never for throughput.

export interface WireCounts {
  statements: number;
  roundTrips: number;
  /** Of `statements`: BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE. */
  transactionControl: number;
}

export interface WireProxy {
  port: number;
  counts(): WireCounts;
  close(): Promise<void>;
}

const CONTROL = /^\s*(begin|start transaction|commit|rollback|savepoint|release|end)\b/i;

/** Where libpq would connect for `url`: a socket path (`?host=/dir`) or host and port. */
export function pgAddress(url: string): { path: string } | { host: string; port: number } {
  const socketDir = /[?&]host=([^&]+)/.exec(url)?.[1];
  const port = Number(/[?&]port=(\d+)/.exec(url)?.[1] ?? /@[^/:?]*:(\d+)/.exec(url)?.[1] ?? 5432);
  if (socketDir && decodeURIComponent(socketDir).startsWith('/')) return { path: `${decodeURIComponent(socketDir)}/.s.PGSQL.${port}` };
  const host = /@([^/:?]+)/.exec(url)?.[1] ?? 'localhost';
  return { host, port };
}

/** `url` pointed at the proxy on 127.0.0.1:port, its user, password and database kept. */
export function throughProxy(url: string, port: number): string {
  const auth = /^postgres(?:ql)?:\/\/([^@/]*)@/.exec(url)?.[1];
  const database = /^postgres(?:ql)?:\/\/[^/]*\/([^?]*)/.exec(url)?.[1] ?? '';
  return `postgres://${auth ? `${auth}@` : ''}127.0.0.1:${port}/${database}`;
}

export async function startWireProxy(target: ReturnType<typeof pgAddress>): Promise<WireProxy> {
  const counts: WireCounts = { statements: 0, roundTrips: 0, transactionControl: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    // As PostgreSQL and node-postgres do: an answer written in two segments must not wait
    // for the first one's ACK (Nagle's algorithm against a delayed ACK: 40 ms a round trip).
    client.setNoDelay(true);
    const upstream = connect(target);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    // ReadyForQuery messages asked for and not yet received.
    let unanswered = 0;
    let oneByteAnswers = 0;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // The startup packet (and an SSLRequest) has no type byte: length, then the rest.
        const head = started ? 1 : 0;
        if (pending.length < head + 4) break;
        const length = pending.readInt32BE(head);
        if (pending.length < head + length) break;
        if (started) {
          const type = String.fromCharCode(pending[0]!);
          if (type === 'Q' || type === 'E') counts.statements++;
          if (type === 'Q' || type === 'S') {
            if (unanswered === 0) counts.roundTrips++;
            unanswered++;
          }
          if (type === 'Q' && CONTROL.test(pending.subarray(5, Math.min(5 + 40, 1 + length)).toString('utf8'))) counts.transactionControl++;
        } else if (length !== 8) {
          started = true; // 8 bytes: SSLRequest / GSSENCRequest, answered before the real startup
        } else {
          oneByteAnswers++; // answered by one byte, 'N' or 'S', without a length
        }
        pending = pending.subarray(head + length);
      }
    });
    let answers = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      // Every backend message has a type byte and a length (the startup's answers included).
      answers = Buffer.concat([answers, chunk]);
      for (; oneByteAnswers > 0 && answers.length > 0; oneByteAnswers--) answers = answers.subarray(1);
      while (answers.length >= 5 && answers.length >= 1 + answers.readInt32BE(1)) {
        if (answers[0] === 0x5a /* Z: ReadyForQuery */ && unanswered > 0) unanswered--;
        answers = answers.subarray(1 + answers.readInt32BE(1));
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    counts: () => ({ ...counts }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
