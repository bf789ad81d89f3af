// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Lint for the whole repository, and the dependency directions of CONTRIBUTING.md as
// import rules: each block names a folder and what it must not import.

/** `no-restricted-imports` patterns for a folder: the groups it may not reach. */
const forbid = (...groups) => ({
  'no-restricted-imports': ['error', { patterns: groups.map(([group, message]) => ({ group, message })) }],
});

const EXPRESS = [['express', 'express/*'], 'HTTP belongs to server/http, server/api and server/checkout'];
const ROUTES = [['**/api/*'], 'route modules are leaves: import the use case or presenter, not the route'];
const HTTP = [['**/http/*'], 'HTTP concerns stay in server/http, server/api and server/checkout'];
const PAYMENTS = [['**/payments/*'], 'only use cases call gateways'];
const STORE = [['**/store/*'], 'pure code does no I/O'];
const DRIVERS = [['kysely', 'pg', 'better-sqlite3', 'pino', 'node:*', '!node:crypto'], 'pure code does no I/O (randomness from node:crypto is allowed)'];
const SCREEN = [['**/widget/screen/*', '**/widget/screen/**'], 'the screen is for the checkout page only; shared field rules live in widget/fields'];
const SERVER = [['**/server/**'], 'browser code never imports the server'];
const OUTSIDE_SDK = [['**/server/**', '**/widget/**', '**/test/**', '../../**'], 'the SDK stands alone: it talks to the service over HTTP only and ships without this repository'];
const UPWARDS = [['**/checkout/*', '**/notify/*', '**/jobs/*', '**/demo/*', '**/present/*', '**/transactions/*', '**/clients/*', '**/commands/*', '**/schemas/*'], 'the store and the domain sit below every use case'];

// Each aggregate's tables and the one module that writes them (a module may own several).
const WRITERS = {
  sales: 'server/store/sale-aggregate.ts',
  transactions: 'server/store/transaction-aggregate.ts',
  transaction_lines: 'server/store/transaction-aggregate.ts',
  gateway_calls: 'server/store/gateway-calls.ts',
  subscriptions: 'server/store/subscriptions.ts',
  subscription_charges: 'server/store/subscription-charges.ts',
  sale_operations: 'server/store/sale-operations.ts',
  ledger_entries: 'server/store/ledger.ts',
  mails: 'server/store/mails.ts',
  idempotency_keys: 'server/store/idempotency.ts',
  events: 'server/store/events.ts',
  event_deliveries: 'server/store/events.ts',
  delivery_attempts: 'server/store/events.ts',
  clients: 'server/store/clients.ts',
  wallets: 'server/store/ledger.ts',
  transfers: 'server/store/transfers.ts',
  merchant_payouts: 'server/store/merchant-payouts.ts',
  balance_transactions: 'server/store/balance.ts',
  disputes: 'server/store/disputes.ts',
  dispute_files: 'server/store/disputes.ts',
  authorizations: 'server/store/authorizations.ts',
  merchant_payout_settings: 'server/store/merchant-payouts.ts',
  users: 'server/store/users.ts',
  dashboard_sessions: 'server/store/users.ts',
  processors: 'server/store/processors.ts',
  processor_payouts: 'server/store/processor-payouts.ts',
  sandbox_charges: 'server/store/sandbox-books.ts',
  sandbox_sessions: 'server/store/sandbox-sessions.ts',
  webhook_endpoints: 'server/store/webhook-endpoints.ts',
  api_requests: 'server/store/api-requests.ts',
  api_keys: 'server/store/api-keys.ts',
  environments: 'server/store/environments.ts',
};
/** `no-restricted-syntax` selectors for a write of `table` (a Kysely write, insertRows, compiledInsert, a job's claimBatch). */
const writesOf = (table) => {
  const message = `${table} are written by ${WRITERS[table].replace('server/', '')} only`;
  return [
    { selector: `CallExpression[callee.property.name=/^(updateTable|insertInto|deleteFrom)$/][arguments.0.value='${table}']`, message },
    { selector: `CallExpression[callee.name=/^(insertRows|compiledInsert)$/][arguments.1.value='${table}']`, message },
    { selector: `CallExpression[callee.name='claimBatch'] > ObjectExpression > Property[key.name='table'][value.value='${table}']`, message },
  ];
};
/** Every aggregate's writes but those of the tables `writer` owns. */
const writesBut = (writer) => Object.keys(WRITERS).filter((t) => WRITERS[t] !== writer).flatMap(writesOf);
const IDEMPOTENT = 'server/commands/idempotent.ts';
const KEYS_CLAIMED = { selector: "ImportDeclaration[source.value=/\\/idempotency$/]", message: 'Idempotency-Keys are claimed and completed by commands/idempotent.ts only: run the command and map its outcome' };

export default tseslint.config(
  // snippet.js is the minified queue stub merchants paste into their pages, kept as shipped.
  { ignores: ['dist/', 'node_modules/', 'reports/', 'data/', 'test-results/', 'playwright-report/', 'widget/embed/snippet.js', 'test/typed-client/generated/', 'test/readme-snippets/', 'packages/*/dist/', 'packages/sdk/src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
      // The store's builder types vary by caller (server/store/locking.ts), and tests read JSON bodies.
      '@typescript-eslint/no-explicit-any': 'off',
      // Global augmentation merges interfaces that add nothing of their own (widget/embed/checkout.d.ts).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  // Plain JavaScript run by Node (CI helpers, this file).
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
  // Playwright fixtures destructure nothing when they need no other fixture.
  // Short functions and files in the product's code (issue 32): a function over 80 lines, or a
  // file over 400, mixes jobs. Released migrations and the row types are exempt.
  {
    files: ['server/**/*.{ts,tsx}', 'widget/**/*.{ts,tsx}', 'packages/sdk/src/**/*.ts'],
    ignores: ['server/store/migrations/**', 'server/store/schema.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ['test/e2e/**'], rules: { 'no-empty-pattern': 'off' } },
  // One fixture pool for every spec (test/e2e/fixtures.ts): a spec with a test of its own runs in workers of its own.
  {
    files: ['test/e2e/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@playwright/test', importNames: ['test'], message: "take test from './fixtures': another fixture pool starts workers of its own" }] }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='extend']:not([callee.object.name='expect'])", message: 'declare the fixture in fixtures.ts: another fixture pool starts workers of its own' }],
    },
  },
  // Type tests state values whose types are the assertion.
  { files: ['**/*.test-d.ts'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  { files: ['server/domain/**'], rules: forbid(EXPRESS, ROUTES, HTTP, PAYMENTS, STORE, DRIVERS, UPWARDS) },
  { files: ['server/store/**'], rules: forbid(EXPRESS, ROUTES, HTTP, PAYMENTS, UPWARDS, SCREEN) },
  { files: ['server/payments/**'], rules: forbid(EXPRESS, ROUTES, HTTP, SCREEN) },
  { files: ['server/present/**', 'server/transactions/**', 'server/clients/**'], rules: forbid(EXPRESS, ROUTES, PAYMENTS) },
  // The use cases every front door shares and the one idempotent command: no front door's own code.
  { files: ['server/commands/**'], rules: forbid(EXPRESS, ROUTES, SCREEN, [['**/dashboard/*', '**/checkout/*'], 'front doors call the commands, never the other way']) },
  // The API's field schemas, shared by its routes, the commands and the dashboard's forms.
  { files: ['server/schemas/**'], rules: forbid(EXPRESS, ROUTES, PAYMENTS, SCREEN, [['**/dashboard/*', '**/checkout/*', '**/commands/*'], 'schemas are values: the front doors and the commands import them']) },
  { files: ['server/notify/**', 'server/jobs/**'], rules: forbid(EXPRESS, ROUTES, HTTP) },
  { files: ['server/demo/**'], rules: forbid(EXPRESS, ROUTES, HTTP) },
  // listen and trigger are clients of the public API, like a merchant's code.
  { files: ['server/devtools/**'], rules: forbid(EXPRESS, ROUTES, HTTP, STORE, [['**/payments/!(sandbox)'], 'the developer tools move money through the API only']) },
  // The operator's CLIs write through the store and the shared use cases, never through HTTP.
  { files: ['server/cli/**'], rules: forbid(EXPRESS, ROUTES, HTTP, SCREEN) },
  { files: ['server/api/**', 'server/http/**'], rules: forbid(SCREEN) },
  { files: ['server/dashboard/**'], rules: forbid(ROUTES, SCREEN) },
  { files: ['widget/fields/**'], rules: forbid(SERVER, [['../*', '!../fields'], 'field rules are plain functions of values, shared by the server and the screen: they import neither']) },
  { files: ['widget/**'], ignores: ['widget/fields/**', 'widget/i18n/**'], rules: forbid(SERVER) },
  { files: ['widget/i18n/**'], rules: forbid(SERVER, SCREEN) },
  // Who writes sales? store/sale-aggregate.ts alone (issue 48): every change of a sale's money
  // is the row locked, a rule of domain/sales.ts, the amounts written with their status.
  // Who writes transactions? store/transaction-aggregate.ts alone: who may pay, cancel or
  // expire one is the row locked, a rule of domain/payment-claim.ts, the new state written.
  // Who writes gateway calls? store/gateway-calls.ts alone: each call's change of state, once.
  // Who speaks the Idempotency-Key protocol? commands/idempotent.ts alone: every front door
  // runs it and maps its outcome, none claims or completes a key itself.
  { files: ['server/**/*.{ts,tsx}'], ignores: [...new Set(Object.values(WRITERS)), IDEMPOTENT, 'server/store/migrations/**'], rules: { 'no-restricted-syntax': ['error', ...writesBut(), KEYS_CLAIMED] } },
  ...[...new Set(Object.values(WRITERS))].map((writer) => ({ files: [writer], rules: { 'no-restricted-syntax': ['error', ...writesBut(writer), KEYS_CLAIMED] } })),
  { files: [IDEMPOTENT], rules: { 'no-restricted-syntax': ['error', ...writesBut()] } },
  // The SDK (packages/sdk) is a package of its own: nothing of the service, the widget or the tests.
  { files: ['packages/sdk/src/**'], rules: forbid(OUTSIDE_SDK) },
);
