import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';
import { ACTION_FAULTS } from './processor-matrix';
import { SIGNUP_CALLS, SIGNUP_START_FAULTS, signupCases } from './signup-faults';

// The processor fault matrix for a subscription's sign-up with a card saved on Stripe Checkout, and its first period's charge:
// each fault on each call, and the start faults (the setup session's answer lost, then a restart or not) on the session's creation.
withProcessor(stripeProcessor, (bench) => signupCases(bench, SIGNUP_CALLS, [...ACTION_FAULTS, ...SIGNUP_START_FAULTS]));
