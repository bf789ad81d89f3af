import { describe, expect, it } from 'vitest';
import { keptUntilChanged } from '../../server/store/auth-changes';

// What a process keeps of its settings (store/auth-changes.ts): a read per key until the
// watch's generation moves on; a read begun before a change never answers a later look.

describe('keptUntilChanged', () => {
  function world() {
    let generation = 0;
    const reads: string[] = [];
    let pending: (() => void) | null = null;
    const read = async (key: string) => {
      reads.push(key);
      if (key === 'slow') await new Promise<void>((resolve) => (pending = resolve));
      return `${key}@${generation}`;
    };
    return { read, reads, change: () => void generation++, changes: async () => generation, release: () => pending?.() };
  }

  it('reads each key once while nothing changes, and again once something has', async () => {
    const w = world();
    const kept = keptUntilChanged(w.changes, w.read);
    expect(await kept('a')).toBe('a@0');
    expect(await kept('a')).toBe('a@0');
    expect(await kept('b')).toBe('b@0');
    expect(w.reads).toEqual(['a', 'b']);
    w.change();
    expect(await kept('a')).toBe('a@1');
    expect(await kept('a')).toBe('a@1');
    expect(w.reads).toEqual(['a', 'b', 'a']);
  });

  it('a read begun before a change is not served after it', async () => {
    const w = world();
    const kept = keptUntilChanged(w.changes, w.read);
    const first = kept('slow');
    await Promise.resolve();
    w.change();
    w.release();
    await first;
    // Kept under the generation it began in: the look after the change reads again.
    const again = kept('slow');
    await Promise.resolve();
    w.release();
    expect(await again).toBe('slow@1');
    expect(w.reads).toEqual(['slow', 'slow']);
  });

  it('keeps at most `max` keys: beyond, it starts again', async () => {
    const w = world();
    const kept = keptUntilChanged(w.changes, w.read, 2);
    await kept('a');
    await kept('b');
    await kept('c');
    await kept('c');
    await kept('a');
    expect(w.reads).toEqual(['a', 'b', 'c', 'a']);
  });
});
