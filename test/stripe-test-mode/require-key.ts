import { stripeTestKey } from './key';

// `npm run test:stripe-test-mode`'s first step: a clear message and exit code 1 without a test-mode key, before vitest starts.
const found = stripeTestKey();
if ('problem' in found) {
  process.stderr.write(`${found.problem}\n`);
  process.exit(1);
}
