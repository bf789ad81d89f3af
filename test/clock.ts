/** The service's clock: real time, moved forward by tests instead of waiting. */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
  reset(): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => void (offset += ms),
    reset: () => void (offset = 0),
  };
}
