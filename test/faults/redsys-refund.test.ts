import { actionCases, redsysExpected, withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's refunds, on the terminal with the query service (a file per processor and route, so the runner's workers share them out).
withProcessor(() => redsysProcessor('1'), (bench) => actionCases(bench, 'refund', undefined, redsysExpected(true)));
