// The subscription's states and the spec's four actions. `past_due` is entered only by a
// failed charge, and left by a successful one (→ active) or the last failure (→ stopped).

export const SUBSCRIPTION_STATUSES = ['waiting', 'trialing', 'active', 'paused', 'past_due', 'stopped'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SUBSCRIPTION_ACTIONS = ['start', 'pause', 'active', 'stop'] as const;
export type SubscriptionAction = (typeof SUBSCRIPTION_ACTIONS)[number];

/** The states each action may start from. */
export const ACTION_FROM: Record<SubscriptionAction, readonly SubscriptionStatus[]> = {
  start: ['waiting'],
  pause: ['active'],
  active: ['paused'],
  stop: ['waiting', 'trialing', 'active', 'paused', 'past_due'],
};

/** The states in which the scheduler charges a due period. */
/** The sign-up page has something to do: take a card to start, or a new card to recover. */
export function signupOpen(row: { status: string; authorization_id: string | null }): boolean {
  return (row.status === 'waiting' && row.authorization_id === null) || row.status === 'past_due';
}

export const CHARGEABLE: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

/** Where an allowed action leads; `start` depends on the plan's trial. */
export function actionTarget(action: SubscriptionAction, trialDays: number): SubscriptionStatus {
  switch (action) {
    case 'start':
      return trialDays > 0 ? 'trialing' : 'active';
    case 'pause':
      return 'paused';
    case 'active':
      return 'active';
    case 'stop':
      return 'stopped';
  }
}
