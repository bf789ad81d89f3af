import { describe, expect, it } from 'vitest';
import { keptUntilChanged } from '../../server/store/auth-changes';
import type { Db } from '../../server/store/db';

// What a process keeps of its settings (store/auth-changes.ts): a read per key until the
// watch's generation moves on; a read begun before a change never answers a later look.

describe('keptUntilChanged', () => {
  function world() {
    let generation = 0;
    const reads: string[] = [];
    let pending: (() => void) | null = null;
    const through: (Db | undefined)[] = [];
    const read = async (key: string, db?: Db) => {
      reads.push(db ? `${key} in trx` : key);
      if (key === 'slow') await new Promise<void>((resolve) => (pending = resolve));
      return `${key}@${generation}`;
    };
    return { read, reads, change: () => void generation++, through, changes: async (db?: Db) => (through.push(db), generation), release: () => pending?.() };
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
    const kept = keptUntilChanged(w.changes, w.read, { max: 2 });
    await kept('a');
    await kept('b');
    await kept('c');
    await kept('c');
    await kept('a');
    expect(w.reads).toEqual(['a', 'b', 'c', 'a']);
  });

  it('inside a transaction: answers what is kept when current, else reads through the transaction and keeps nothing', async () => {
    const w = world();
    const trx = { isTransaction: true } as Db;
    const kept = keptUntilChanged(w.changes, w.read);
    // Nothing kept yet: the transaction reads it, on its own connection, and it is not kept.
    expect(await kept('a', trx)).toBe('a@0');
    expect(await kept('a')).toBe('a@0');
    expect(w.reads).toEqual(['a in trx', 'a']);
    // Kept and current: no read at all, and the watch looked through the transaction.
    expect(await kept('a', trx)).toBe('a@0');
    expect(w.reads).toEqual(['a in trx', 'a']);
    expect(w.through).toEqual([trx, undefined, trx]);
    // Stale: the transaction reads again, and the kept value stays the old generation's.
    w.change();
    expect(await kept('a', trx)).toBe('a@1');
    expect(w.reads).toEqual(['a in trx', 'a', 'a in trx']);
    expect(await kept('a')).toBe('a@1');
    expect(w.reads).toEqual(['a in trx', 'a', 'a in trx', 'a']);
  });
  it('keeps what a clean transaction read (it sees what is committed); never what a transaction that changed it read', async () => {
    const w = world();
    const clean = { isTransaction: true } as Db;
    const dirty = { isTransaction: true } as Db;
    const kept = keptUntilChanged(w.changes, w.read, { clean: (trx) => trx === clean });
    expect(await kept('a', dirty)).toBe('a@0');
    expect(await kept('a', clean)).toBe('a@0');
    // Kept from the clean transaction's read: no read for the next look, in or out of one.
    expect(await kept('a')).toBe('a@0');
    expect(await kept('a', dirty)).toBe('a@0');
    expect(w.reads).toEqual(['a in trx', 'a in trx']);
    w.change();
    expect(await kept('a', dirty)).toBe('a@1');
    expect(await kept('a')).toBe('a@1');
    expect(w.reads).toEqual(['a in trx', 'a in trx', 'a in trx', 'a']);
  });
});
