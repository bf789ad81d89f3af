import { RESTART_FAULTS, START_FAULTS } from './payment-faults';
import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';
import { saveCases } from './save-faults';

// The processor fault matrix for a card saved with Stripe on the hosted save page: the setup session's start lost, then a restart or not.
withProcessor(stripeProcessor, (bench) => saveCases(bench, [...START_FAULTS, ...RESTART_FAULTS]));
