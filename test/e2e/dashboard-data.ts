import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { axeInEveryDocument, axeViolations } from './axe';
import { expect, type Service } from './fixtures';
import { LAPTOP, payButton } from './screen';
import { inviteUrl, inviteUser } from '../../server/dashboard/accounts';
import { type Db, openDatabase } from '../../server/store/db';
import { listEnvironments } from '../../server/store/environments';
import type { Role } from '../../server/store/schema';
import { payLink } from '../api/pay';
import { startArgs } from '../server-bundle';
import { runHere } from '../cli';
import { keysCommand } from '../../server/cli/keys';

// Transactions with everything a transaction's page can show, made through the API and the
// payment page as a merchant's would be: a card payment crediting a wallet, a held card
// payment that stored the card, and a payment from that wallet to another's.

/** The environment every service starts with (DEMO=true). */
const DEMO = 'Demo shop';

/** `npm run keys` on the service's data, its command run in this process (test/cli.ts): its JSON answer. */
export const keys = async (service: Service, args: string[]) => JSON.parse(await runHere(keysCommand, [...args, '--json'], { ...process.env, DATA_DIR: service.dataDir, DATABASE_URL: '' }));

/** `npm run keys` or `npm run users` as the real process, from the run's compiled bundle. */
const cli = async (entry: 'keys-cli' | 'users-cli', service: Service, args: string[]) =>
  JSON.parse(
    (await promisify(execFile)(process.execPath, [...startArgs(entry), ...args, '--json'], { env: { ...process.env, DATA_DIR: service.dataDir, DATABASE_URL: '' } })).stdout,
  );

/** A one-time link from the real `npm run users -- invite` (two process starts): what dashboard.spec.ts's first test follows. */
export async function cliInvite(service: Service, email: string, role = 'owner', environment?: string): Promise<string> {
  const demo = environment ?? (await keys(service, ['list'])).find((e: { name: string }) => e.name === DEMO).id;
  const { url } = await cli('users-cli', service, ['invite', '--email', email, '--role', role, '--environment', demo]);
  return `${service.url}${new URL(url).pathname}`;
}

/** The service's SQLite data opened in this process, as the CLIs open it (WAL lets a second process write). */
async function withData<T>(service: Service, use: (db: Db) => Promise<T>): Promise<T> {
  const database = openDatabase({ databaseUrl: null, dataDir: service.dataDir });
  try {
    return await use(database.db);
  } finally {
    await database.close();
  }
}

const demoOf = async (db: Db) => (await listEnvironments(db)).find((e) => e.name === DEMO)!.id;

/** The demo environment's id, as `npm run keys -- list` shows it, without its process start. */
export const demoEnvironment = (service: Service): Promise<string> => withData(service, demoOf);

/**
 * The link `npm run users -- invite` prints, made as it makes it (inviteUser) but in this
 * process: the CLI's two process starts took 0.8–1 s each per sign-up on these machines
 * (docs/performance-changelog.md). The demo environment unless another is named.
 */
export const invite = (service: Service, email: string, role: Role = 'owner', environment?: string): Promise<string> =>
  withData(service, async (db) => {
    const { token } = await inviteUser(db, { email, environmentId: environment ?? (await demoOf(db)), role, invitedBy: null, now: new Date() });
    return inviteUrl(service.url, token);
  });

/** The password every dashboard test sets for the people it invites. */
export const PASSWORD = 'a long and unusual passphrase';
export const PHONE_360 = { width: 360, height: 740 };

/** Accepts an invitation (invite(): npm run users -- invite's) with PASSWORD: signed in, on the Overview. */
export async function signUp(page: Page, service: Service, email: string, role: Role = 'owner', environment?: string): Promise<void> {
  await page.goto(await invite(service, email, role, environment));
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
}

/**
 * axe finds nothing, and nothing is wider than the screen, in light and dark at 360 px and
 * 1280 px: every rule in light, the colour rules again in dark (COLOUR_RULES). The
 * dashboard's pages run no script, so axe is put into each of the page's documents as it
 * starts from here on (axeInEveryDocument), not evaluated after each load. Their only
 * frames are the settings' previews of the payment page, which its own specs check.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await axeInEveryDocument(page);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const size of [PHONE_360, LAPTOP]) {
      await page.setViewportSize(size);
      const violations = await axeViolations(page, undefined, colorScheme === 'light' ? 'all' : 'colours', { frames: false });
      expect(violations.map((v) => `${colorScheme} ${size.width}px ${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${colorScheme} ${size.width}px`).toBeLessThanOrEqual(0);
    }
  }
}

/**
 * A payment made as its screen makes it (the page, then its form post with the gateway
 * shown chosen), without drawing the screen: for specs about what the dashboard shows of a
 * payment, whose screen the checkout's specs drive in Chromium (a page load and its
 * hydration less per payment).
 */
export const payAsCustomer = (paymentUrl: string, cardNumber = '4242 4242 4242 4242'): Promise<void> => payLink(paymentUrl, cardNumber, 'Ada Lovelace');

/** The payment through its screen in Chromium: for specs that read what the screen showed. */
export async function payByCard(page: Page, paymentUrl: string, cardNumber = '4242 4242 4242 4242'): Promise<void> {
  await page.goto(paymentUrl);
  await page.getByLabel(/card number/i).fill(cardNumber);
  await page.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await page.locator('input[autocomplete="cc-csc"]').fill('123');
  await page.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
  await payButton(page).click();
  await expect(page.getByRole('heading', { name: 'Payment complete' })).toBeVisible();
}

async function created(service: Service, path: string, body: unknown): Promise<any> {
  const res = await service.api('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const lamp = (price: number, over: Record<string, unknown>) => ({ currency: 'EUR', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price } }], ...over });

export interface RichTransactions {
  /** Paid by card, held: its stored card (authorization) and status history. */
  held: { id: string };
  /** Paid from a wallet, with a share to another wallet. */
  fromWallet: { id: string };
}

export async function richTransactions(service: Service, tag: string): Promise<RichTransactions> {
  const client = await created(service, '/client/', { name: 'Grace Hopper', id_country: 'GB', id_number: `X${tag}`, email: `grace.${tag}@example.com` });
  const seller = await created(service, '/client/', { name: 'Lamp workshop', id_country: 'GB', id_number: `Y${tag}`, email: `workshop.${tag}@example.com` });
  const purse = await created(service, '/wallet/', { wallet_id: `purse-${tag}`, name: 'Purse', client_id: client.id, currency: 'EUR' });
  const till = await created(service, '/wallet/', { wallet_id: `till-${tag}`, name: 'Till', client_id: seller.id, currency: 'EUR' });
  const topUp = await created(service, '/transaction/', lamp(50, { order_id: `top-up-${tag}`, destination: [{ wallet_id: purse.id, amount: 50 }] }));
  await payAsCustomer(topUp.payment_url);
  const held = await created(service, '/transaction/', lamp(35, { order_id: `held-${tag}`, authorize: true }));
  await payAsCustomer(held.payment_url);
  const fromWallet = await created(service, '/transaction/', lamp(20, { order_id: `wallet-${tag}`, source: [{ wallet_id: purse.id, amount: 20 }], destination: [{ wallet_id: till.id, amount: 17, concept: 'Lamp sold' }] }));
  expect(fromWallet.status).toBe('D');
  return { held, fromWallet };
}
