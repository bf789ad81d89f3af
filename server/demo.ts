import type { Config } from './config';
import { inviteUrl, inviteUser } from './dashboard/accounts';
import type { Database } from './store/db';
import { countEnvironments, createEnvironment, findDemoEnvironment, type NewKeys } from './store/environments';

/**
 * On the first start of an empty embedded database (or always with DEMO=true), create a
 * demo environment so a new user can create a transaction straight away.
 */
export async function ensureDemoEnvironment(config: Config, database: Database, now: Date): Promise<NewKeys | null> {
  const wanted = config.demo === 'on' || (config.demo === 'auto' && database.engine === 'sqlite');
  if (!wanted) return null;
  if (config.demo === 'auto' && (await countEnvironments(database.db)) > 0) return null;
  if (await findDemoEnvironment(database.db)) return null;
  return createEnvironment(database.db, { name: 'Demo shop', isDemo: true, now });
}

/** `approvedCard`: the test card that pays (the sandbox's declared one, domain/test-cards.ts). */
export function demoInstructions(keys: NewKeys, baseUrl: string, approvedCard: string): string {
  const body = JSON.stringify({
    currency: 'EUR',
    order_id: 'demo-1',
    gateway_selected: true,
    return_url: `${baseUrl}/demo/?paid=1`,
    cancel_url: `${baseUrl}/demo/?cancelled=1`,
    products: [{ amount: 2, product: { name: 'Coffee beans 250 g', price: 8.5 } }],
  });
  return [
    '',
    'A demo environment was created. Its keys (shown only now, keep them):',
    `  public key:     ${keys.public_key}`,
    `  secret key:     ${keys.secret_key}`,
    `  webhook secret: ${keys.webhook_secret}`,
    '',
    "Paste this line into your shell: the README's quick starts use these variables.",
    `  export PUBLIC_KEY=${keys.public_key} SECRET_KEY=${keys.secret_key} WEBHOOK_SECRET=${keys.webhook_secret}`,
    '',
    'Then create a transaction, and open its payment_url in a browser:',
    `  curl -s ${baseUrl}/v1/transaction/ \\`,
    `    -H "Authorization: AppKeys $PUBLIC_KEY:$SECRET_KEY" \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '${body}'`,
    '',
    `Or open ${baseUrl}/demo/ to pay in the embedded widget (test card ${approvedCard}).`,
    '',
  ].join('\n');
}

/** The demo merchant's owner account: its email, and where an invite for it is printed. */
const DEMO_OWNER_EMAIL = 'owner@demo.example';

/** A one-time dashboard link for the demo merchant, printed beside its keys. */
export async function demoDashboardInstructions(database: Database, keys: NewKeys, baseUrl: string, now: Date): Promise<string> {
  const { token } = await inviteUser(database.db, { email: DEMO_OWNER_EMAIL, environmentId: keys.environment_id, role: 'owner', invitedBy: null, now });
  return [
    `Open the dashboard as the demo shop's owner (${DEMO_OWNER_EMAIL}): set a password with this`,
    'one-time link (valid 24 hours), then sign in at /dashboard/ whenever you like:',
    `  ${inviteUrl(baseUrl, token)}`,
    '',
  ].join('\n');
}
