import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';
import { signupCases } from './signup-faults';

// The processor fault matrix for a subscription's sign-up with a card saved on Stripe Checkout, and its first period's charge.
withProcessor(stripeProcessor, (bench) => signupCases(bench));
