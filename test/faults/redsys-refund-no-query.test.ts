import { actionCases, redsysExpected, withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's refunds on a terminal without the query service: a refund whose outcome is unknown goes to attention and is never sent again.
withProcessor(() => redsysProcessor('2'), (bench) => actionCases(bench, 'refund', undefined, redsysExpected(false)));
