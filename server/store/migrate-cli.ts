import { startingConfig } from '../config';
import { openDatabase } from './db';
import { migrate } from './migrations';

const config = startingConfig();
const database = openDatabase(config);
try {
  const applied = await migrate(database);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} finally {
  await database.close();
}
