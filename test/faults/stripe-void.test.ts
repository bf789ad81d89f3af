import { actionCases, withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for Stripe's cancellations of a hold (a file per processor and route).
withProcessor(stripeProcessor, (bench) => actionCases(bench, 'void'));
