import { describe, expect, it } from 'vitest';
import { axisTop } from '../../server/dashboard/home-page';

// The home chart's money axis: its top is the smallest 1, 2 or 5 × 10ⁿ minor units at or
// above the highest day, so the half-way line is a round amount too.

describe('axisTop', () => {
  it('rounds the highest day up to 1, 2 or 5 × 10ⁿ', () => {
    expect([1, 2, 3, 7, 10, 11, 20, 21, 50, 51, 99, 100, 5500, 20_000, 20_001, 123_456_789].map(axisTop)).toEqual([
      1, 2, 5, 10, 10, 20, 20, 50, 50, 100, 100, 100, 10_000, 20_000, 50_000, 200_000_000,
    ]);
  });
});
