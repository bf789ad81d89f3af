// The loader's message handling, with fake window/document objects (no DOM library): what a
// mount does with each message. Overlay focus and layout are left to the browser tests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageCountingWindow } from './fake-window';
import { createCheckout } from '../../../widget/embed/embed';
import { frameSrc, isHttpUrl } from '../../../widget/embed/frame';

const CHECKOUT = 'https://checkout.example';
const SHOP = 'https://shop.example';

class FakeFrame {
  src = '';
  title = '';
  allow = '';
  attributes: Record<string, string> = {};
  contentWindow: object | null = { frame: true };
  heightWrites: string[] = [];
  style = new Proxy({} as Record<string, string>, {
    set: (target, key, value) => {
      if (key === 'height') this.heightWrites.push(value);
      target[key as string] = value;
      return true;
    },
  });
  setAttribute(name: string, value: string) {
    this.attributes[name] = value;
  }
  remove() {
    this.contentWindow = null;
  }
}

class FakeElement extends EventTarget {
  children: unknown[] = ['fallback link'];
  replaceChildren(...children: unknown[]) {
    this.children = children;
  }
}

class FakeWindow extends MessageCountingWindow {
  location = { origin: SHOP, assign: vi.fn() };
}

let win: FakeWindow;
let frames: FakeFrame[];

beforeEach(() => {
  frames = [];
  win = new FakeWindow();
  // The loader calls the window's members bare, as globals.
  vi.stubGlobal('location', win.location);
  vi.stubGlobal('addEventListener', win.addEventListener.bind(win));
  vi.stubGlobal('removeEventListener', win.removeEventListener.bind(win));
  vi.stubGlobal('document', {
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

describe('frameSrc', () => {
  it('encodes the token and the parent origin, and adds the language only when given', () => {
    expect(frameSrc(CHECKOUT, 'a/b c?', SHOP)).toBe(`${CHECKOUT}/pay/a%2Fb%20c%3F/?embed=1&origin=https%3A%2F%2Fshop.example`);
    expect(frameSrc(CHECKOUT, 't', SHOP, 'fr')).toBe(`${CHECKOUT}/pay/t/?embed=1&origin=https%3A%2F%2Fshop.example&lang=fr`);
  });
});

describe('isHttpUrl', () => {
  it.each(['https://shop.example/thanks', 'http://localhost:3000/', 'HTTPS://SHOP.EXAMPLE/'])('follows %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });
  it.each(['javascript:alert(1)', ' javascript:alert(1)', 'data:text/html,x', '//shop.example/', '/thanks', '', null, 42])(
    'refuses %s',
    (url) => {
      expect(isHttpUrl(url)).toBe(false);
    },
  );
});

describe('mount', () => {
  it('replaces the placeholder with a titled, borderless, non-scrolling frame', () => {
    const { element, frame } = mount({ language: 'es' });
    expect(element.children).toEqual([frame]);
    expect(frame.src).toBe(frameSrc(CHECKOUT, 'tok', SHOP, 'es'));
    expect(frame.title).toBe('Pago');
    expect(frame.attributes.scrolling).toBe('no');
    // Set through the CSSOM (cssText), which a strict style-src allows.
    expect(frame.style.cssText!.split(';')).toEqual(expect.arrayContaining(['border:0', 'width:100%', 'overflow:hidden']));
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

  it.each([null, 'javascript:alert(document.cookie)', 'data:text/html,<script>1</script>'])(
    'does not navigate to redirect %s',
    (redirect) => {
      mount();
      post({ ...completed, redirect });
      expect(win.location.assign).not.toHaveBeenCalled();
    },
  );

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
    post(completed, { source: { someOtherWindow: true } });
    post({ ...completed, version: 2 });
    post({ type: 'checkout:resize', version: 1, height: 9000 }, { origin: 'https://evil.example' });
    expect(onComplete).not.toHaveBeenCalled();
    expect(events).toHaveLength(0);
    expect(frame.heightWrites).toEqual([]);
    expect(win.location.assign).not.toHaveBeenCalled();
  });

  it('keeps two mounts apart: each hears only its own frame', () => {
    const a = mount();
    const b = mount();
    post({ type: 'checkout:resize', version: 1, height: 300 }, { source: b.frame.contentWindow });
    expect(a.frame.heightWrites).toEqual([]);
    expect(b.frame.heightWrites).toEqual(['300px']);
  });

  it('does not expose the internal escape message on inline mounts', () => {
    const { events } = mount();
    post({ type: 'checkout:escape', version: 1 });
    expect(events).toHaveLength(0);
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
