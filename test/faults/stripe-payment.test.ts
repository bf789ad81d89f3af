import { PAYMENT_FAULTS, paymentCases, RESTART_FAULTS, START_FAULTS } from './payment-faults';
import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for a payment through Stripe Checkout by redirect, whose
// Checkout Session our server makes when the customer chooses to pay: its answer lost too,
// and lost before a restart.
withProcessor(stripeProcessor, (bench) => paymentCases(bench, [...PAYMENT_FAULTS, ...START_FAULTS, ...RESTART_FAULTS]));
