// The frame side's handling of page → frame messages, with fake window/document objects (no
// DOM library): who may ask the frame to focus its last control. Real focus is left to the
// browser tests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageCountingWindow } from './fake-window';
import { startFrameBridge } from '../../../widget/embed/frame-bridge';

const SHOP = 'https://shop.example';
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
  parent: object = { name: 'window.parent' };
}

let win: FakeWindow;
let doc: { activeElement: unknown; documentElement: object; querySelectorAll: () => FakeControl[] } & EventTarget;
let pay: FakeControl;
let cancel: FakeControl;

beforeEach(() => {
  win = new FakeWindow();
  Object.assign(win.parent, { postMessage: vi.fn() });
  pay = new FakeControl('pay');
  cancel = new FakeControl('cancel');
  doc = Object.assign(new EventTarget(), {
    activeElement: null as unknown,
    documentElement: { getBoundingClientRect: () => ({ height: 500 }) },
    querySelectorAll: () => [pay, cancel],
  });
  vi.stubGlobal('window', win);
  vi.stubGlobal('document', doc);
  vi.stubGlobal('ResizeObserver', class { observe() {} disconnect() {} });
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
    startFrameBridge({ parentOrigin: SHOP });
    post(focusLast);
    expect(doc.activeElement).toBe(cancel);
    expect(pay.focused).toBe(0);
  });

  it('skips a last control that is disabled, hidden or out of the tab order', () => {
    startFrameBridge({ parentOrigin: SHOP });
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
    startFrameBridge({ parentOrigin: SHOP });
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
    startFrameBridge({ parentOrigin: SHOP });
    post(data);
    expect(doc.activeElement).toBeNull();
  });

  it('ignores everything when not framed (the parent is the window itself)', () => {
    win.parent = win;
    startFrameBridge({ parentOrigin: SHOP });
    post(focusLast, { source: win });
    expect(doc.activeElement).toBeNull();
  });

  it('removes its message listener on stop()', () => {
    const bridge = startFrameBridge({ parentOrigin: SHOP });
    expect(win.messageListeners.size).toBe(1);
    bridge.stop();
    expect(win.messageListeners.size).toBe(0);
    post(focusLast);
    expect(doc.activeElement).toBeNull();
  });
});
