// A request a test double holds (its `holdNext`): the test learns when it arrived, and lets
// it go when it chooses, after killing the service that sent it, for instance. Shared by the
// Stripe and Redsys doubles.

export interface HeldRequest {
  /** Resolves when the request arrives at the double. */
  arrived: Promise<void>;
  /** Lets it go: its answer is sent (to nobody, if its caller is gone), or its connection cut when it was never carried out. */
  release(): void;
}

/** A hold, and the double's side of it: `arrive()` when the request comes, `released` to wait on. */
export function heldRequest(): HeldRequest & { arrive(): void; released: Promise<void> } {
  let arrive = () => {};
  let release = () => {};
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { arrived, released, arrive, release };
}
