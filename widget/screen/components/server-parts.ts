// The server's side of components/parts.tsx: every part, rendered.
// Imported by the document (server) only, never by client.tsx.
import { LanguageSwitcher } from './Chrome';
import { OrderSummary } from './OrderSummary';
import { ResultPanel } from './Outcome';
import type { ScreenParts } from './parts';

export const SERVER_PARTS: ScreenParts = { OrderSummary, Languages: LanguageSwitcher, Result: ResultPanel };
