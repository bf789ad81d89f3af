import type Stripe from 'stripe';
import type { SentMemory } from './sent';
import type { StripeSettings } from './settings';

/** What every part of the connector works with: one account's clients (API and files host), its settings, its memory of what it sent, the clock. */
export interface StripeContext {
  stripe: Stripe;
  /** The same account's client for Stripe's files host (uploads of dispute evidence). */
  files: Stripe;
  settings: StripeSettings;
  sent: SentMemory;
  now: () => Date;
}
