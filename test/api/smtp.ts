import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real SMTP server in the test process: the service sends to it over TCP with nodemailer,
// and tests read back what arrived, parsed by mailparser as a mail client would.

export interface Arrived {
  envelopeTo: string[];
  raw: string;
  mail: ParsedMail;
}

export interface TestSmtp {
  url: string;
  received: Arrived[];
  /** Refuses every message with a temporary failure while set (the sender must retry). */
  refuse: boolean;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const state: TestSmtp = { url: '', received: [], refuse: false, close: async () => undefined };
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: no certificate to trust.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refuse) return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (mail) => {
            state.received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, mail });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  state.url = `smtp://127.0.0.1:${port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
