// The server's side of components/parts.tsx: the parts the browser keeps as rendered.
// Imported by the document (server) only, never by client.tsx.
import { LanguageSwitcher } from './Chrome';
import { OrderSummary } from './OrderSummary';
import type { ScreenParts } from './parts';

export const SERVER_PARTS: ScreenParts = { OrderSummary, Languages: LanguageSwitcher };
