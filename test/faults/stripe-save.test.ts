import { RESTART_FAULTS, START_FAULTS } from './payment-faults';
import { ACTION_FAULTS, withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';
import { saveCases, saveReadCases, saveSessionCases } from './save-faults';

// The processor fault matrix for a card saved with Stripe on the hosted save page: the setup session's start lost, then a restart or not;
// the other faults of its creation; and each fault of a read on the return's read of the session, the card saved at Stripe.
withProcessor(stripeProcessor, (bench) => {
  saveCases(bench, [...START_FAULTS, ...RESTART_FAULTS]);
  saveSessionCases(bench, ['kill-before', 'kill-during', 'kill-after', 'refuse']);
  saveReadCases(bench, ACTION_FAULTS);
});
