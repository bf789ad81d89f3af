// The screen's reactive values: the part of @preact/signals-core's API it uses (signal,
// computed, effect, batch, subscribe, peek), in a fraction of its bytes (issue 29: the
// library was 1.6 KB gzip of every page view). Simpler, and it does less:
// - a value set to what it already is notifies nobody; a computed is recomputed on read
//   after any of its sources changed, and notifies its own dependents as soon as a
//   source changes, even if it then computes the same value;
// - effects run once per batch, after it, in the order they were first notified;
// - a subscription's callback runs untracked, as signals-core's does.
// Nothing here knows the DOM: the server builds models with it too.

interface Observer {
  sources: Set<Source>;
  /** A source changed: mark stale and pass it on (computed), or queue a run (effect). */
  notify(): void;
}

let observer: Observer | null = null;
let depth = 0;
const queue = new Set<Effect>();

/** Reads inside `fn` are not tracked by the observer running now. */
function untracked<T>(fn: () => T): T {
  const outer = observer;
  observer = null;
  try {
    return fn();
  } finally {
    observer = outer;
  }
}

/** Runs `fn` as `by`, which then depends on exactly what it read. */
function tracked<T>(by: Observer, fn: () => T): T {
  for (const source of by.sources) source.observers.delete(by);
  by.sources.clear();
  const outer = observer;
  observer = by;
  try {
    return fn();
  } finally {
    observer = outer;
  }
}

export function batch<T>(fn: () => T): T {
  depth++;
  try {
    return fn();
  } finally {
    if (--depth === 0) flush();
  }
}

function flush(): void {
  depth++;
  try {
    // An effect that changes what it reads runs again; a loop of them is a bug.
    for (let runs = 0; queue.size; runs++) {
      if (runs > 1000) throw new Error('signals: effects keep changing what they read');
      const [next] = queue;
      queue.delete(next!);
      next!.run();
    }
  } finally {
    depth--;
  }
}

abstract class Source<T = unknown> {
  observers = new Set<Observer>();
  protected track(): void {
    if (observer) {
      this.observers.add(observer);
      observer.sources.add(this);
    }
  }
  protected changed(): void {
    batch(() => [...this.observers].forEach((o) => o.notify()));
  }
  abstract peek(): T;
  abstract get value(): T;
  /** Calls `fn` with the value now and on each change; returns the unsubscribe. */
  subscribe(fn: (value: T) => void): () => void {
    return effect(() => {
      const value = this.value;
      untracked(() => fn(value));
    });
  }
}

export interface ReadonlySignal<T> {
  readonly value: T;
  peek(): T;
  subscribe(fn: (value: T) => void): () => void;
}

export interface Signal<T> extends ReadonlySignal<T> {
  value: T;
}

class ValueSignal<T> extends Source<T> implements Signal<T> {
  constructor(private current: T) {
    super();
  }
  peek(): T {
    return this.current;
  }
  get value(): T {
    this.track();
    return this.current;
  }
  set value(next: T) {
    if (next === this.current) return;
    this.current = next;
    this.changed();
  }
}

class Computed<T> extends Source<T> implements Observer, ReadonlySignal<T> {
  sources = new Set<Source>();
  private stale = true;
  private current!: T;
  constructor(private readonly compute: () => T) {
    super();
  }
  notify(): void {
    if (this.stale) return;
    this.stale = true;
    this.changed();
  }
  peek(): T {
    if (this.stale) {
      this.current = tracked(this, this.compute);
      this.stale = false;
    }
    return this.current;
  }
  get value(): T {
    this.track();
    return this.peek();
  }
}

class Effect implements Observer {
  sources = new Set<Source>();
  private disposed = false;
  constructor(private readonly fn: () => void) {}
  notify(): void {
    if (!this.disposed) queue.add(this);
  }
  run(): void {
    if (!this.disposed) tracked(this, this.fn);
  }
  dispose(): void {
    this.disposed = true;
    queue.delete(this);
    tracked(this, () => undefined);
  }
}

export const signal = <T>(value: T): Signal<T> => new ValueSignal(value);

export const computed = <T>(fn: () => T): ReadonlySignal<T> => new Computed(fn);

/** Runs `fn` now and whenever what it read changes; returns the dispose. */
export function effect(fn: () => void): () => void {
  const e = new Effect(fn);
  batch(() => e.run());
  return () => e.dispose();
}
