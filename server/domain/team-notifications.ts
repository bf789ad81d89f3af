// The emails a merchant's team may get (docs/dashboard.md "Notifications"), and who gets
// them until a member chooses: owners and admins, whose work they are; viewers may opt in.

export const TEAM_NOTIFICATIONS = ['dispute_opened', 'payout_failed', 'endpoint_failing'] as const;
export type TeamNotification = (typeof TEAM_NOTIFICATIONS)[number];

export type TeamChoices = Record<TeamNotification, boolean>;

/** A member's choices before they make any. */
export function defaultChoices(role: 'owner' | 'admin' | 'viewer'): TeamChoices {
  const on = role !== 'viewer';
  return { dispute_opened: on, payout_failed: on, endpoint_failing: on };
}

/** How long every delivery to an endpoint must have failed before its team is told. */
export const ENDPOINT_FAILING_MS = 24 * 3600_000;
