import { runAsProcess } from './cli/command';
import { usersCommand } from './cli/users';

// `npm run users -- …` (server/cli/users.ts).
await runAsProcess(usersCommand);
