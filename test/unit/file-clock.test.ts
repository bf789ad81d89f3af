import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { fileClock } from '../../server/clock';
import { serviceClock } from '../service-clock';

// The clock a service process reads from TEST_CLOCK_FILE, as the tests that start one write it.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-clock-'));
  vi.useFakeTimers({ now: Date.parse('2026-12-05T08:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

it('is real time shifted by the offset written, and moves with real time', () => {
  const clock = serviceClock(dir);
  const now = fileClock(clock.env.TEST_CLOCK_FILE);
  expect(now().toISOString()).toBe('2026-12-05T08:00:00.000Z');
  clock.set(90_000);
  expect(now().toISOString()).toBe('2026-12-05T08:01:30.000Z');
  vi.advanceTimersByTime(5_000);
  expect(now().toISOString()).toBe('2026-12-05T08:01:35.000Z');
});

it('stands still at the instant written with `=` until an offset is written again', () => {
  const clock = serviceClock(dir);
  const now = fileClock(clock.env.TEST_CLOCK_FILE);
  clock.stand(Date.parse('2026-12-05T09:00:00Z'));
  vi.advanceTimersByTime(20_000);
  expect(now().toISOString()).toBe('2026-12-05T09:00:00.000Z');
  clock.set(0);
  expect(now().toISOString()).toBe('2026-12-05T08:00:20.000Z');
});
