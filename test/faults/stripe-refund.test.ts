import { actionCases, withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for Stripe's refunds (a file per processor and route, so the runner's workers share them out).
withProcessor(stripeProcessor, (bench) => actionCases(bench, 'refund'));
