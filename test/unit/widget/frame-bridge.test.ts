// The frame side's handling of page → frame messages, with fake window/document objects (no
// DOM library): who may ask the frame to focus its last control. Real focus is left to the
// browser tests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageCountingWindow } from './fake-window';
import { startFrameBridge } from '../../../widget/embed/frame-bridge';
import { drawOverlay } from '../../../widget/embed/frame-overlay';

// The overlay's dialog itself (DOM) is left to the browser tests: here only whether it is drawn.
vi.mock('../../../widget/embed/frame-overlay', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../widget/embed/frame-overlay')>()),
  drawOverlay: vi.fn(),
}));

const SHOP = 'https://shop.example';
/** The overlay's words, as the screen hands them over from its strings. */
const WORDS = { title: 'Pago', close: 'Cerrar' };
const CHECKOUT = 'https://checkout.example';
const focusLast = { type: 'checkout:focus-last', version: 1 };

/** A focusable control: focus() makes it the document's activeElement. */
class FakeControl {
  tabIndex = 0;
  focused = 0;
  constructor(readonly name: string) {}
  matches = () => false;
  closest = () => null;
  getClientRects = () => [{}];
  focus() {
    this.focused++;
    doc.activeElement = this;
  }
}

class FakeWindow extends MessageCountingWindow {
  name = '';
  parent: object = { name: 'window.parent' };
}

let win: FakeWindow;
let doc: {
  activeElement: unknown;
  documentElement: object;
  querySelectorAll: () => FakeControl[];
  querySelector: (selector: string) => unknown;
} & EventTarget;
let observed: unknown[];
let openDialog: object | null;
let pay: FakeControl;
let cancel: FakeControl;

beforeEach(() => {
  win = new FakeWindow();
  Object.assign(win.parent, { postMessage: vi.fn() });
  pay = new FakeControl('pay');
  cancel = new FakeControl('cancel');
  observed = [];
  openDialog = null;
  doc = Object.assign(new EventTarget(), {
    activeElement: null as unknown,
    documentElement: { getBoundingClientRect: () => ({ height: 500 }) },
    querySelectorAll: () => [pay, cancel],
    querySelector: (selector: string) => (selector === 'dialog[open]' ? openDialog : null),
  });
  vi.stubGlobal('window', win);
  vi.stubGlobal('document', doc);
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe(target: unknown) {
        observed.push(target);
      }
      disconnect() {}
    },
  );
  vi.mocked(drawOverlay).mockClear();
  vi.stubGlobal('HTMLInputElement', class {});
  vi.stubGlobal('getComputedStyle', () => ({ visibility: 'visible' }));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const post = (data: unknown, from: { origin?: string; source?: unknown } = {}) =>
  win.dispatchEvent(Object.assign(new Event('message'), { origin: from.origin ?? SHOP, source: from.source ?? win.parent, data }));

describe('frame bridge: checkout:focus-last', () => {
  it('focuses the last control when the parent page asks, at the parent origin', () => {
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    post(focusLast);
    expect(doc.activeElement).toBe(cancel);
    expect(pay.focused).toBe(0);
  });

  it('skips a last control that is disabled, hidden or out of the tab order', () => {
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    cancel.matches = () => true; // :disabled
    post(focusLast);
    expect(doc.activeElement).toBe(pay);
    cancel.matches = () => false;
    cancel.getClientRects = () => [];
    doc.activeElement = null;
    post(focusLast);
    expect(doc.activeElement).toBe(pay);
    cancel.getClientRects = () => [{}];
    cancel.tabIndex = -1;
    doc.activeElement = null;
    post(focusLast);
    expect(doc.activeElement).toBe(pay);
  });

  it.each([
    ['another origin, from the parent window', { origin: 'https://evil.example' }],
    ['the checkout origin, from the parent window', { origin: CHECKOUT }],
    ['the parent origin with another port', { origin: 'https://shop.example:444' }],
    ['the parent origin, from a sibling frame', { source: { name: 'sibling frame' } }],
    ['the parent origin, from the frame itself', { source: 'self' }],
  ])('ignores it from %s', (_, row) => {
    const from: { origin?: string; source?: unknown } = row;
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    post(focusLast, { ...from, source: from.source === 'self' ? win : from.source });
    expect(doc.activeElement).toBeNull();
    expect(pay.focused + cancel.focused).toBe(0);
  });

  it.each([
    ['another version', { ...focusLast, version: 2 }],
    ['no version', { type: 'checkout:focus-last' }],
    ['another type', { type: 'checkout:escape', version: 1 }],
    ['a string', 'checkout:focus-last'],
  ])('ignores %s from the parent', (_, data) => {
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    post(data);
    expect(doc.activeElement).toBeNull();
  });

  it('ignores everything when not framed (the parent is the window itself)', () => {
    win.parent = win;
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    post(focusLast, { source: win });
    expect(doc.activeElement).toBeNull();
  });

  it('removes its message listener on stop()', () => {
    const bridge = startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    expect(win.messageListeners.size).toBe(1);
    bridge.stop();
    expect(win.messageListeners.size).toBe(0);
    post(focusLast);
    expect(doc.activeElement).toBeNull();
  });
});

describe('frame bridge: inline or an overlay', () => {
  const posted = () => vi.mocked((win.parent as { postMessage: (m: unknown, o: string) => void }).postMessage).mock.calls;
  const escape = () => doc.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', cancelable: true }));
  // Node has no KeyboardEvent: a plain Event with a key is all the bridge reads.
  beforeEach(() => {
    vi.stubGlobal(
      'KeyboardEvent',
      class extends Event {
        key: string;
        constructor(type: string, init: { key: string; cancelable?: boolean }) {
          super(type, init);
          this.key = init.key;
        }
      },
    );
  });

  it('inline: measures its height, draws nothing, and forwards Escape as checkout:escape (older loaders)', () => {
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    expect(observed).toEqual([doc.documentElement]);
    expect(drawOverlay).not.toHaveBeenCalled();
    escape();
    expect(posted()).toEqual([[{ type: 'checkout:escape', version: 1 }, SHOP]]);
  });

  it("an overlay's frame (named so by the loader) draws the dialog, sends no heights, and closes on Escape", () => {
    win.name = 'checkout-overlay';
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    expect(drawOverlay).toHaveBeenCalledTimes(1);
    // In the screen's words, from its strings (locales/: overlay.*).
    expect(vi.mocked(drawOverlay).mock.calls[0]![2]).toEqual(WORDS);
    expect(observed).toEqual([]);
    escape();
    expect(posted()).toEqual([[{ type: 'checkout:close', version: 1 }, SHOP]]);
    // The dialog's close button asks the same.
    vi.mocked(drawOverlay).mock.calls[0]![1]();
    expect(posted()).toEqual([
      [{ type: 'checkout:close', version: 1 }, SHOP],
      [{ type: 'checkout:close', version: 1 }, SHOP],
    ]);
  });

  it("keeps the overlay open on an Escape that a control or the screen's own dialog (the bank's challenge) takes", () => {
    win.name = 'checkout-overlay';
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    const handled = new KeyboardEvent('keydown', { key: 'Escape', cancelable: true });
    handled.preventDefault();
    doc.dispatchEvent(handled);
    openDialog = {};
    escape();
    expect(posted()).toEqual([]);
  });

  it('draws nothing when not framed, whatever its name', () => {
    win.name = 'checkout-overlay';
    win.parent = win;
    startFrameBridge({ parentOrigin: SHOP, words: WORDS });
    expect(drawOverlay).not.toHaveBeenCalled();
  });
});
