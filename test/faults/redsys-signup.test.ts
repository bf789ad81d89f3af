import { withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';
import { redsysSignupCases } from './redsys-signup-faults';

// The processor fault matrix for a subscription's sign-up with a card saved on Redsys's page, and its first period's charge.
withProcessor(() => redsysProcessor('1'), (bench) => redsysSignupCases(bench));
