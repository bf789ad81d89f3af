import type Stripe from 'stripe';
import type { SentMemory } from './sent';
import type { StripeSettings } from './settings';

/** What every part of the connector works with: one account's client, its settings, its memory of what it sent, the clock. */
export interface StripeContext {
  stripe: Stripe;
  settings: StripeSettings;
  sent: SentMemory;
  now: () => Date;
}
