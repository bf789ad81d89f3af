import { describe, expect, it } from 'vitest';
import { batch, computed, effect, signal } from '../../../widget/screen/signals';

// The screen's own reactive values (widget/screen/signals.ts), in the ways the model and
// client.tsx use them; test/unit/screen/model.test.ts exercises them through the model.

describe('signals', () => {
  it('a signal notifies its effects when it changes, not when set to the same value', () => {
    const a = signal(1);
    const seen: number[] = [];
    effect(() => void seen.push(a.value));
    a.value = 2;
    a.value = 2;
    expect(seen).toEqual([1, 2]);
    expect(a.peek()).toBe(2);
  });

  it('a computed follows its sources, recomputes only when read after a change, and notifies its effects', () => {
    const a = signal(2);
    let runs = 0;
    const double = computed(() => (runs++, a.value * 2));
    expect(runs).toBe(0);
    expect(double.value).toBe(4);
    expect(double.value).toBe(4);
    expect(runs).toBe(1);
    const seen: number[] = [];
    effect(() => void seen.push(double.value));
    a.value = 5;
    expect(seen).toEqual([4, 10]);
    expect(runs).toBe(2);
  });

  it('a batch runs each effect once, after it', () => {
    const a = signal(0);
    const b = signal(0);
    const seen: string[] = [];
    effect(() => void seen.push(`${a.value}/${b.value}`));
    batch(() => {
      a.value = 1;
      b.value = 2;
      expect(seen).toEqual(['0/0']);
    });
    expect(seen).toEqual(['0/0', '1/2']);
  });

  it('an effect depends on what its last run read, and stops when disposed', () => {
    const which = signal(true);
    const a = signal('a');
    const b = signal('b');
    const seen: string[] = [];
    const stop = effect(() => void seen.push(which.value ? a.value : b.value));
    b.value = 'b2';
    which.value = false;
    a.value = 'a2';
    b.value = 'b3';
    stop();
    b.value = 'b4';
    expect(seen).toEqual(['a', 'b2', 'b3']);
  });

  it('subscribe calls with the value now and on each change, untracked, until unsubscribed', () => {
    const a = signal(1);
    const other = signal(0);
    const seen: number[] = [];
    const stop = a.subscribe((value) => {
      seen.push(value + other.value);
    });
    other.value = 10; // read in the callback, not a dependency
    a.value = 2;
    stop();
    a.value = 3;
    expect(seen).toEqual([1, 12]);
  });

  it('an effect that writes a signal another effect reads: both settle in one flush', () => {
    const a = signal(1);
    const b = signal(0);
    const seen: number[] = [];
    effect(() => {
      b.value = a.value * 10;
    });
    effect(() => void seen.push(b.value));
    a.value = 2;
    expect(seen).toEqual([10, 20]);
  });

  it('an effect that keeps changing what it reads is stopped with an error', () => {
    const a = signal(0);
    expect(() =>
      effect(() => {
        a.value = a.value + 1;
      }),
    ).toThrow(/keep changing/);
  });
});
