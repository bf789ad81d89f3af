import { faultMatrix } from '../faults/matrix';

// One real-process case per fault kind per engine in `npm test`, continued from
// fault-kinds-kills-refusals.test.ts: a hosted payment through a processor that loses its
// answer, acts after our timeout, or tells only by a notification.
faultMatrix(['hosted pay'], ['lose', 'late', 'notify-later']);
