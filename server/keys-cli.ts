import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from './config';
import { openDatabase } from './store/db';
import { createEnvironment, listEnvironments, updateEnvironment } from './store/environments';
import { migrate } from './store/migrations';

const USAGE = `Usage:
  npm run keys -- create --name "Shop" [--allowed-origin https://shop.example]... [--json]
  npm run keys -- list [--json]
  npm run keys -- set --environment <id> [--name "Shop"] [--allowed-origin <origin>]... [--rotate-webhook-secret] [--json]`;

const origin = z
  .url({ protocol: /^https?$/ })
  .transform((u) => new URL(u).origin)
  .describe('allowed origin');

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    environment: { type: 'string' },
    'allowed-origin': { type: 'string', multiple: true },
    'rotate-webhook-secret': { type: 'boolean' },
    json: { type: 'boolean' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function print(value: Record<string, unknown>) {
  if (values.json) return void process.stdout.write(`${JSON.stringify(value)}\n`);
  for (const [k, v] of Object.entries(value)) process.stdout.write(`${k.padEnd(16)} ${Array.isArray(v) ? v.join(' ') : v}\n`);
}

const origins = values['allowed-origin']?.map((o) => {
  const parsed = origin.safeParse(o);
  return parsed.success ? parsed.data : fail(`--allowed-origin ${o}: must be an http(s) origin`);
});

const database = openDatabase(loadConfig());
try {
  await migrate(database);
  const db = database.db;
  switch (positionals[0]) {
    case 'create': {
      const name = values.name?.trim() || fail('create needs --name');
      print({ ...(await createEnvironment(db, { name, allowedOrigins: origins, now: new Date() })) });
      break;
    }
    case 'list': {
      const rows = await listEnvironments(db);
      if (values.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
      else for (const r of rows) process.stdout.write(`${r.id}  ${r.public_key}  ${r.name}\n`);
      break;
    }
    case 'set': {
      const id = values.environment ?? fail('set needs --environment');
      const name = values.name === undefined ? undefined : values.name.trim() || fail('--name must not be empty');
      const row = await updateEnvironment(db, id, {
        name,
        allowedOrigins: origins,
        rotateWebhookSecret: values['rotate-webhook-secret'],
      });
      if (!row) fail(`no environment ${id}`);
      print({
        environment_id: row.id,
        name: row.name,
        public_key: row.public_key,
        allowed_origins: row.allowed_origins,
        ...(values['rotate-webhook-secret'] ? { webhook_secret: row.webhook_secret } : {}),
      });
      break;
    }
    default:
      fail(positionals[0] ? `unknown command ${positionals[0]}` : 'missing command');
  }
} finally {
  await database.close();
}
