import { faultMatrix } from './matrix';

// The real-process fault matrix for one money route (a file per route, so the runner's workers share them out).
faultMatrix(['hosted authorize']);
