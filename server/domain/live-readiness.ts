// Whether a live environment is ready to take real payments (issue 45, docs/dashboard.md#live-readiness):
// a processor connected (and which key), a webhook from it received recently, the brand
// customers see, and an address they can write to. Pure: the dashboard reads the facts and
// shows what this decides, on the checklist page and under the Overview's "Needs attention".

/**
 * "Recently": a verified webhook delivery within the last 72 hours. A shop taking payments
 * hears from its processor with each one (and Stripe retries a failed delivery for three
 * days), so three days of silence after deliveries had arrived means they stopped: the
 * endpoint at the processor was removed or disabled, or its signing secret changed.
 */
export const WEBHOOK_RECENT_MS = 72 * 60 * 60 * 1000;

export const READINESS_ITEMS = ['processor', 'webhook', 'branding', 'support_email'] as const;
export type ReadinessItem = (typeof READINESS_ITEMS)[number];

export interface ReadinessFacts {
  /** The processors connected (not deleted), newest first. */
  processors: { id: string; type: string; secret_key_last4: string; last_verified_at: string | null }[];
  display_name: string | null;
  brand_color: string | null;
  logo_sha256: string | null;
  support_email: string | null;
}

/** `never`: no verified delivery yet; `stale`: the last one is older than WEBHOOK_RECENT_MS. */
export type WebhookState = 'recent' | 'stale' | 'never';

export interface Readiness {
  /** Each item, ready or not, in the checklist's order. */
  ready: Record<ReadinessItem, boolean>;
  /** The items not ready, in order. */
  missing: ReadinessItem[];
  /** The newest processor's key, by its last four; null: none connected. */
  keyLast4: string | null;
  webhooks: WebhookState;
  /** The newest verified delivery of any connected processor. */
  lastDelivery: string | null;
}

export function liveReadiness(facts: ReadinessFacts, now: Date): Readiness {
  const deliveries = facts.processors.flatMap((p) => (p.last_verified_at ? [p.last_verified_at] : [])).sort();
  const lastDelivery = deliveries.at(-1) ?? null;
  const webhooks: WebhookState = lastDelivery === null ? 'never' : now.getTime() - Date.parse(lastDelivery) <= WEBHOOK_RECENT_MS ? 'recent' : 'stale';
  const ready: Record<ReadinessItem, boolean> = {
    processor: facts.processors.length > 0,
    webhook: webhooks === 'recent',
    // What customers see of the shop: its own name, and its colour or logo.
    branding: facts.display_name !== null && (facts.brand_color !== null || facts.logo_sha256 !== null),
    support_email: facts.support_email !== null,
  };
  return { ready, missing: READINESS_ITEMS.filter((i) => !ready[i]), keyLast4: facts.processors[0]?.secret_key_last4 ?? null, webhooks, lastDelivery };
}
