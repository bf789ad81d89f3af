import { z } from 'zod';
import { SINGLE_LINE, TEXT_MESSAGES } from '../../widget/fields/text';
import { loadConfig } from '../config';
import { inviteUrl, inviteUser } from '../dashboard/accounts';
import { openDatabase } from '../store/db';
import { findEnvironment, listEnvironments } from '../store/environments';
import { migrate } from '../store/migrations';
import { ROLES } from '../store/users';
import { type Command, parsedArgs, wrong } from './command';

// `npm run users`: a one-time sign-in link for a dashboard member, written straight into the
// database a service runs on.

const USAGE = `Usage:
  npm run users -- invite --email someone@example.com [--environment <id>] [--role owner|admin|viewer] [--json]

Prints a one-time link (valid 24 hours) with which the person sets a password and signs in
to the dashboard. It may set the account's first password, as only a link sent to the
email may otherwise: hand it to that person yourself. Without --environment, the only
environment (there must be one).`;

const input = z.object({
  email: z.email(),
  // Looked up in the database, which refuses some characters (PostgreSQL: NUL): refused here instead.
  environment: z.string().regex(SINGLE_LINE, TEXT_MESSAGES.line).optional(),
  role: z.enum(ROLES as ['viewer', 'admin', 'owner']).default('owner'),
  json: z.boolean().optional(),
});

const OPTIONS = { email: { type: 'string' }, environment: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } } as const;

export const usersCommand: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { positionals, values } = parsedArgs(argv, OPTIONS);
    if (positionals[0] !== 'invite') wrong(positionals[0] ? `unknown command ${positionals[0]}` : 'missing command');
    const parsed = input.safeParse(values);
    if (!parsed.success) wrong(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
    const args = parsed.data;
    const config = loadConfig(io.env);
    const database = openDatabase(config);
    try {
      await migrate(database);
      const db = database.db;
      let environmentId = args.environment;
      if (environmentId === undefined) {
        const all = await listEnvironments(db);
        if (all.length !== 1) wrong(`there are ${all.length} environments: name one with --environment (npm run keys -- list)`);
        environmentId = all[0]!.id;
      } else if (!(await findEnvironment(db, environmentId))) {
        wrong(`no environment ${environmentId}`);
      }
      const { token, expiresAt } = await inviteUser(db, { email: args.email, environmentId, role: args.role, invitedBy: null, now: new Date() });
      const url = inviteUrl(config.publicUrl ?? `http://localhost:${config.port}`, token);
      if (args.json) io.stdout(`${JSON.stringify({ url, email: args.email, environment_id: environmentId, role: args.role, expires_at: expiresAt.toISOString() })}\n`);
      else io.stdout(`Send this one-time link to ${args.email} (${args.role}; valid until ${expiresAt.toISOString()}):\n  ${url}\n`);
    } finally {
      await database.close();
    }
  },
};
