import { runAsProcess } from './cli/command';
import { keysCommand } from './cli/keys';

// `npm run keys -- …` (server/cli/keys.ts).
await runAsProcess(keysCommand);
