import { actionCases, redsysExpected, withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's cancellations of a pre-authorisation (a file per processor and route).
withProcessor(() => redsysProcessor('1'), (bench) => actionCases(bench, 'void', undefined, redsysExpected(true)));
