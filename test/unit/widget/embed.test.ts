// The loader's message handling, with fake window/document objects (no DOM library): what a
// mount or an overlay does with each message. The overlay's dialog (drawn by the frame's
// page), real focus and layout are left to the browser tests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageCountingWindow } from './fake-window';
import { createCheckout } from '../../../widget/embed/embed';

const CHECKOUT = 'https://checkout.example';
const SHOP = 'https://shop.example';

class FakeFrame {
  src = '';
  title = '';
  name = '';
  scrolling = '';
  allow = '';
  isConnected = false;
  focused = 0;
  contentWindow: object | null = { frame: true };
  heightWrites: string[] = [];
  style = new Proxy({} as Record<string, string>, {
    set: (target, key, value) => {
      if (key === 'height') this.heightWrites.push(value);
      target[key as string] = value;
      return true;
    },
  });
  focus() {
    this.focused++;
  }
  remove() {
    this.contentWindow = null;
    this.isConnected = false;
  }
}

class FakeElement extends EventTarget {
  children: unknown[] = ['fallback link'];
  inert = false;
  style: { overflow?: string } = {};
  replaceChildren(...children: FakeFrame[]) {
    this.children = children;
    for (const child of children) child.isConnected = true;
  }
  append(...children: FakeFrame[]) {
    this.children.push(...children);
    for (const child of children) child.isConnected = true;
  }
}

class FakeWindow extends MessageCountingWindow {
  location = { origin: SHOP, assign: vi.fn() };
}

let win: FakeWindow;
let frames: FakeFrame[];
let body: FakeElement;
/** <html>: an overlay's frame goes beside <body>. */
let root: FakeElement;
let opener: { focus: ReturnType<typeof vi.fn> };
let rootStyle: { overflow: string };

beforeEach(() => {
  frames = [];
  win = new FakeWindow();
  body = new FakeElement();
  body.children = [];
  opener = { focus: vi.fn() };
  rootStyle = { overflow: 'scroll' };
  root = new FakeElement();
  root.children = [body];
  root.style = rootStyle;
  // The loader calls the window's members bare, as globals.
  vi.stubGlobal('location', win.location);
  vi.stubGlobal('addEventListener', win.addEventListener.bind(win));
  vi.stubGlobal('removeEventListener', win.removeEventListener.bind(win));
  vi.stubGlobal('document', {
    body,
    activeElement: opener,
    documentElement: root,
    createElement: () => {
      const frame = new FakeFrame();
      frames.push(frame);
      return frame;
    },
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const post = (data: object, from: { origin?: string; source?: unknown } = {}) =>
  win.dispatchEvent(
    Object.assign(new Event('message'), { origin: from.origin ?? CHECKOUT, source: from.source ?? frames[0]!.contentWindow, data }),
  );
const result = { transaction_id: 'tx_1', status: 'D', order_id: 'ord_1', redirect: `${SHOP}/thanks` };
const completed = { type: 'checkout:completed', version: 1, ...result };
const cancelled = { type: 'checkout:cancelled', version: 1, ...result, status: 'C', redirect: `${SHOP}/cart` };

function mount(options: Record<string, unknown> = {}) {
  const element = new FakeElement();
  const events: CustomEvent[] = [];
  for (const type of ['ready', 'resize', 'completed', 'cancelled', 'error', 'escape'])
    element.addEventListener(`checkout:${type}`, (e) => events.push(e as CustomEvent));
  const handle = createCheckout(CHECKOUT).mount(element as unknown as HTMLElement, { token: 'tok', ...options });
  return { element, events, handle, frame: frames.at(-1)! };
}

describe('mount', () => {
  it('replaces the placeholder with a titled, borderless, non-scrolling frame that may take wallet payments', () => {
    const { element, frame } = mount({ language: 'es' });
    expect(element.children).toEqual([frame]);
    expect(frame.src).toBe(`${CHECKOUT}/pay/tok/?embed=1&origin=https://shop.example&lang=es`);
    expect(frame.title).toBe('Pago');
    expect(frame.scrolling).toBe('no');
    // The Payment Request API (Apple Pay, Google Pay in Stripe's Payment Element) works in a cross-origin frame only when allowed.
    expect(frame.allow).toBe('payment');
    // Not an overlay's: its page draws no dialog.
    expect(frame.name).toBe('');
    // Set through the CSSOM (cssText), which a strict style-src allows.
    expect(frame.style.cssText!.split(';')).toEqual(expect.arrayContaining(['border:0', 'width:100%', 'display:block']));
    expect(frame.style.cssText).not.toContain('position');
  });

  it('encodes the token in the frame URL, with the parent origin (no character of an origin needs encoding in a query) and the language asked for (empty: none)', () => {
    expect(mount({ token: 'a/b c?' }).frame.src).toBe(`${CHECKOUT}/pay/a%2Fb%20c%3F/?embed=1&origin=https://shop.example&lang=`);
    expect(mount({ token: 't', language: 'fr' }).frame.src).toBe(`${CHECKOUT}/pay/t/?embed=1&origin=https://shop.example&lang=fr`);
  });

  it('calls onReady and dispatches a bubbling checkout:ready event carrying the message', () => {
    const onReady = vi.fn();
    const { events } = mount({ onReady });
    post({ type: 'checkout:ready', version: 1, language: 'en' });
    expect(onReady).toHaveBeenCalledWith({ type: 'checkout:ready', version: 1, language: 'en' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'checkout:ready', bubbles: true, detail: { type: 'checkout:ready', version: 1, language: 'en' } });
  });

  it("names the frame in the language the screen says it shows, whatever was asked", () => {
    const { frame } = mount();
    expect(frame.title).toBe('Checkout');
    post({ type: 'checkout:ready', version: 1, language: 'fr' });
    expect(frame.title).toBe('Paiement');
    // A frame older than the field says nothing: the name stays.
    post({ type: 'checkout:ready', version: 1 });
    expect(frame.title).toBe('Paiement');
  });

  it('sets the frame height only when it changes', () => {
    const { frame } = mount();
    for (const height of [400, 400, 520.5, 521, 380]) post({ type: 'checkout:resize', version: 1, height });
    expect(frame.heightWrites).toEqual(['400px', '521px', '380px']);
  });

  it('reports completion once, then navigates to the http(s) redirect', () => {
    const onComplete = vi.fn();
    const { events } = mount({ onComplete });
    post(completed);
    post(completed);
    post(cancelled);
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(onComplete).toHaveBeenCalledWith(completed);
    expect(events.map((e) => e.type)).toEqual(['checkout:completed']);
    expect(win.location.assign).toHaveBeenCalledTimes(1);
    expect(win.location.assign).toHaveBeenCalledWith(`${SHOP}/thanks`);
  });

  it('stays on the page when onComplete returns false', () => {
    const { events } = mount({ onComplete: () => false });
    post(completed);
    expect(events).toHaveLength(1);
    expect(win.location.assign).not.toHaveBeenCalled();
  });

  it('stays on the page when a listener calls preventDefault (declarative mounts have no callbacks)', () => {
    const { element } = mount();
    element.addEventListener('checkout:cancelled', (e) => e.preventDefault());
    post(cancelled);
    expect(win.location.assign).not.toHaveBeenCalled();
  });

  it('follows the cancel redirect through onCancel', () => {
    const onCancel = vi.fn();
    mount({ onCancel });
    post(cancelled);
    expect(onCancel).toHaveBeenCalledWith(cancelled);
    expect(win.location.assign).toHaveBeenCalledWith(`${SHOP}/cart`);
  });

  it.each(['https://shop.example/thanks', 'http://localhost:3000/', 'HTTPS://SHOP.EXAMPLE/'])('follows the redirect %s', (redirect) => {
    mount();
    post({ ...completed, redirect });
    expect(win.location.assign).toHaveBeenCalledWith(redirect);
  });

  it.each([
    null,
    'javascript:alert(document.cookie)',
    ' javascript:alert(1)',
    'data:text/html,<script>1</script>',
    '//shop.example/',
    '/thanks',
    '',
    42,
  ])('does not navigate to redirect %s', (redirect) => {
    mount();
    post({ ...completed, redirect });
    expect(win.location.assign).not.toHaveBeenCalled();
  });

  it('passes errors to onError without ending the payment', () => {
    const onError = vi.fn();
    const onComplete = vi.fn();
    mount({ onError, onComplete });
    post({ type: 'checkout:error', version: 1, code: 'declined', message: 'Declined' });
    post(completed);
    expect(onError).toHaveBeenCalledWith({ type: 'checkout:error', version: 1, code: 'declined', message: 'Declined' });
    expect(onComplete).toHaveBeenCalledTimes(1);
  });

  it('ignores messages from another origin, another window, or another protocol version', () => {
    const onComplete = vi.fn();
    const { frame, events } = mount({ onComplete });
    post(completed, { origin: 'https://evil.example' });
    post(completed, { origin: 'https://checkout.example.evil.example' });
    post(completed, { origin: 'https://checkout.example:444' });
    post(completed, { source: { someOtherWindow: true } });
    post({ ...completed, version: 2 });
    post({ type: 'checkout:resize', version: 1, height: 9000 }, { origin: 'https://evil.example' });
    expect(onComplete).not.toHaveBeenCalled();
    expect(events).toHaveLength(0);
    expect(frame.heightWrites).toEqual([]);
    expect(win.location.assign).not.toHaveBeenCalled();
  });

  it('ignores a message with no source window, even once its frame is gone (contentWindow null)', () => {
    const onComplete = vi.fn();
    const { frame } = mount({ onComplete });
    win.dispatchEvent(Object.assign(new Event('message'), { origin: CHECKOUT, source: null, data: completed }));
    frame.contentWindow = null;
    win.dispatchEvent(Object.assign(new Event('message'), { origin: CHECKOUT, source: null, data: completed }));
    expect(onComplete).not.toHaveBeenCalled();
  });

  it('keeps two mounts apart: each hears only its own frame', () => {
    const a = mount();
    const b = mount();
    post({ type: 'checkout:resize', version: 1, height: 300 }, { source: b.frame.contentWindow });
    expect(a.frame.heightWrites).toEqual([]);
    expect(b.frame.heightWrites).toEqual(['300px']);
  });

  it('does not expose the internal messages: close (an inline frame asking only removes itself), nor the older escape', () => {
    const { events, frame } = mount();
    post({ type: 'checkout:escape', version: 1 });
    expect(frame.isConnected).toBe(true);
    post({ type: 'checkout:close', version: 1 });
    expect(events).toHaveLength(0);
    expect(frame.isConnected).toBe(false);
    expect(win.messageListeners.size).toBe(0);
    // Nothing of an overlay's undoing: the page's scroll and focus are left alone.
    expect(rootStyle.overflow).toBe('scroll');
    expect(opener.focus).not.toHaveBeenCalled();
  });

  it('destroyed before its frame spoke, reports no checkout:error network when the 10 s are up', () => {
    vi.useFakeTimers();
    try {
      const onError = vi.fn();
      const { frame, handle, events } = mount({ onError });
      (frame as unknown as { onload: () => void }).onload();
      handle.destroy();
      vi.advanceTimersByTime(10_000);
      expect(onError).not.toHaveBeenCalled();
      expect(events).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('destroy() removes the frame and its own listener only', () => {
    const kept = mount();
    const { handle, frame } = mount();
    expect(win.messageListeners.size).toBe(2);
    handle.destroy();
    handle.destroy();
    expect(frame.contentWindow).toBeNull();
    expect(win.messageListeners.size).toBe(1);
    post({ type: 'checkout:resize', version: 1, height: 300 }, { source: kept.frame.contentWindow });
    expect(kept.frame.heightWrites).toEqual(['300px']);
  });
});

describe('open (an overlay)', () => {
  function open(options: Record<string, unknown> = {}) {
    const events: CustomEvent[] = [];
    for (const type of ['ready', 'resize', 'completed', 'cancelled', 'error', 'close'])
      body.addEventListener(`checkout:${type}`, (e) => events.push(e as CustomEvent));
    const onClose = vi.fn();
    const handle = createCheckout(CHECKOUT).open({ token: 'tok', onClose, ...options });
    return { events, handle, onClose, frame: frames.at(-1)! };
  }

  it("appends one named, fixed, full-viewport frame beside the body, focuses it, stills the page and makes it inert", () => {
    const { frame } = open({ language: 'fr' });
    expect(root.children).toEqual([body, frame]);
    expect(body.children).toEqual([]);
    // Out of reach of a screen reader's virtual cursor too, not only of the keyboard.
    expect(body.inert).toBe(true);
    // The name tells the frame's page to draw the dialog.
    expect(frame.name).toBe('checkout-overlay');
    expect(frame.title).toBe('Paiement');
    expect(frame.src).toBe(`${CHECKOUT}/pay/tok/?embed=1&origin=https://shop.example&lang=fr`);
    expect(frame.style.cssText!.split(';')).toEqual(
      expect.arrayContaining(['border:0', 'width:100%', 'height:100%', 'position:fixed', 'inset:0', 'background:#0009']),
    );
    expect(frame.style.cssText).toMatch(/z-index:\d{9}/);
    expect(frame.focused).toBe(1);
    expect(rootStyle.overflow).toBe('hidden');
  });

  it('closes on checkout:close: frame and listener gone, scroll and focus given back, onClose once', () => {
    const { frame, onClose, events, handle } = open();
    post({ type: 'checkout:ready', version: 1, language: 'en' });
    post({ type: 'checkout:close', version: 1 });
    expect(frame.isConnected).toBe(false);
    expect(win.messageListeners.size).toBe(0);
    expect(rootStyle.overflow).toBe('scroll');
    expect(body.inert).toBe(false);
    expect(opener.focus).toHaveBeenCalledTimes(1);
    expect(onClose).toHaveBeenCalledTimes(1);
    // Internal: no event for it.
    expect(events.map((e) => e.type)).toEqual(['checkout:ready']);
    handle.close();
    handle.destroy();
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(opener.focus).toHaveBeenCalledTimes(1);
  });

  it('close() and destroy() close it the same way, once', () => {
    const { frame, onClose, handle } = open();
    handle.destroy();
    handle.close();
    expect(frame.isConnected).toBe(false);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(rootStyle.overflow).toBe('scroll');
  });

  it('closes on an error before the screen is ready (nothing in the frame could close it), and reports it', () => {
    const onError = vi.fn();
    const { frame, onClose, events } = open({ onError });
    const refused = { type: 'checkout:error', version: 1, code: 'origin_not_allowed', message: "This payment can't be shown here" };
    post(refused);
    expect(frame.isConnected).toBe(false);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(refused);
    expect(events.map((e) => e.detail)).toEqual([refused]);
  });

  it('stays open on errors once the screen is ready (the customer can retry)', () => {
    const onError = vi.fn();
    const { frame, onClose } = open({ onError });
    post({ type: 'checkout:ready', version: 1, language: 'en' });
    post({ type: 'checkout:error', version: 1, code: 'declined', message: 'Declined' });
    expect(onError).toHaveBeenCalledTimes(1);
    expect(frame.isConnected).toBe(true);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('closes when the frame never speaks, reporting checkout:error network after 10 s', () => {
    vi.useFakeTimers();
    try {
      const onError = vi.fn();
      const { frame, onClose } = open({ onError });
      (frame as unknown as { onload: () => void }).onload();
      vi.advanceTimersByTime(9_999);
      expect(onError).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(onError).toHaveBeenCalledWith({ type: 'checkout:error', version: 1, code: 'network', message: '' });
      expect(frame.isConnected).toBe(false);
      expect(onClose).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('closed before its frame spoke, reports no checkout:error network when the 10 s are up', () => {
    vi.useFakeTimers();
    try {
      const onError = vi.fn();
      const { frame, handle } = open({ onError });
      (frame as unknown as { onload: () => void }).onload();
      handle.close();
      vi.advanceTimersByTime(10_000);
      expect(onError).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('without <body> yet (a call from <head>) throws and adds nothing: no frame, no listener, no still page', () => {
    vi.stubGlobal('document', { body: null, activeElement: opener, documentElement: root, createElement: () => new FakeFrame() });
    expect(() => createCheckout(CHECKOUT).open({ token: 'tok' })).toThrow(TypeError);
    expect(root.children).toEqual([body]);
    expect(win.messageListeners.size).toBe(0);
    expect(rootStyle.overflow).toBe('scroll');
  });

  it('ignores the escape older loaders closed on, and close from anywhere but its frame', () => {
    const { frame, onClose } = open();
    post({ type: 'checkout:ready', version: 1, language: 'en' });
    post({ type: 'checkout:escape', version: 1 });
    post({ type: 'checkout:close', version: 1 }, { origin: 'https://evil.example' });
    post({ type: 'checkout:close', version: 1 }, { source: { someOtherWindow: true } });
    expect(frame.isConnected).toBe(true);
    expect(onClose).not.toHaveBeenCalled();
  });
});
