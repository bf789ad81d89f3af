import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ApiCallError, connect, type Connection } from './connection';
import { deliveryLine, forward, type ForwardableEvent, localSecret } from './forward';

// npm run listen -- --api <service URL> --key <public>:<secret> --forward-to <local URL>
// Follows the environment's events as they happen (long polls on GET /v1/event/poll/, so
// no inbound port is needed) and POSTs each to a local URL, signed with a local secret.

const USAGE = `Usage:
  npm run listen -- --api <service URL> --key <public key>:<secret key> --forward-to <local URL>
      [--events transaction.paid,sale.refunded]
  npm run listen -- ... --forward-to <local URL> --replay <event id>      (sends that event once)

--api and --key default to PAYMENT_API_URL and PAYMENT_KEY.`;

interface Poll {
  events: ForwardableEvent[];
  cursor: string;
}

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    key: { type: 'string' },
    'forward-to': { type: 'string' },
    events: { type: 'string' },
    replay: { type: 'string' },
    help: { type: 'boolean' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function replay(conn: Connection, target: string, secret: string, id: string): Promise<number> {
  const event = await conn.call<ForwardableEvent>('GET', `/event/${encodeURIComponent(id)}/`);
  const result = await forward(target, secret, event);
  process.stdout.write(`${deliveryLine(event, target, result)}\n`);
  return result.status !== null && result.status >= 200 && result.status < 300 ? 0 : 1;
}

async function follow(conn: Connection, target: string, secret: string, types: Set<string> | null, stop: AbortSignal): Promise<void> {
  let cursor = (await conn.call<Poll>('GET', '/event/poll/', undefined, stop)).cursor;
  process.stdout.write(`Ready! Your signing secret is ${secret} (^C to quit)\n`);
  let failures = 0;
  while (!stop.aborted) {
    let poll: Poll;
    try {
      poll = await conn.call<Poll>('GET', `/event/poll/?wait=20&after=${cursor}`, undefined, stop);
      failures = 0;
    } catch (err) {
      if (stop.aborted) return;
      // Wrong keys do not get better by trying again.
      if (err instanceof ApiCallError && err.status === 401) throw err;
      failures += 1;
      const wait = Math.min(30_000, 500 * 2 ** failures);
      process.stderr.write(`Lost the service (${(err as Error).message}); trying again in ${Math.round(wait / 1000)} s\n`);
      await sleep(wait, undefined, { signal: stop }).catch(() => undefined);
      continue;
    }
    cursor = poll.cursor;
    for (const event of poll.events) {
      if (types && !types.has(event.type)) continue;
      const result = await forward(target, secret, event);
      process.stdout.write(`${deliveryLine(event, target, result)}\n`);
    }
  }
}

async function main(): Promise<number> {
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let conn: Connection;
  try {
    conn = connect(values, process.env);
  } catch (err) {
    fail((err as Error).message);
  }
  const target = values['forward-to'];
  if (!target || !URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) fail('--forward-to must be the http(s) URL of your local webhook handler');
  const secret = localSecret(conn.secretKey);
  if (values.replay) return replay(conn, target, secret, values.replay);
  const types = values.events ? new Set(values.events.split(',').map((t) => t.trim()).filter(Boolean)) : null;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await follow(conn, target, secret, types, stop.signal);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
