// Mounting the checkout frame, inline or in an overlay. Runs on merchant pages, which may
// have a strict CSP: styles are set through element.style (CSSOM), never a <style> tag.

import { FOCUS_LAST, PROTOCOL_VERSION, acceptMessage, type CheckoutMessage } from './protocol';
import type { CheckoutApi, CheckoutHandle, MountOptions } from './checkout';

// [frame title, close button name]; the frame's own page is localised by the server.
const LABELS: Record<string, string[]> = { es: ['Pago', 'Cerrar'], fr: ['Paiement', 'Fermer'] };
const labels = (language?: string) => LABELS[language!] || ['Checkout', 'Close'];

export const frameSrc = (checkoutOrigin: string, token: string, parentOrigin: string, language?: string) =>
  `${checkoutOrigin}/pay/${encodeURIComponent(token)}/?embed=1&origin=${encodeURIComponent(parentOrigin)}` +
  (language ? '&lang=' + encodeURIComponent(language) : '');

/** Only http(s): a `javascript:` URL from a compromised frame must not run in the merchant page. */
export const isHttpUrl = (url: unknown): url is string => typeof url == 'string' && /^https?:\/\//i.test(url);

export function createCheckout(checkoutOrigin: string): CheckoutApi {
  const embed = (element: HTMLElement, options: MountOptions, onEscape?: () => void): CheckoutHandle => {
    const win = window;
    const frame = document.createElement('iframe');
    let height = -1;
    let settled = false;
    frame.src = frameSrc(checkoutOrigin, options.token, win.location.origin, options.language);
    frame.title = labels(options.language)[0]!;
    frame.allow = 'payment';
    // The frame is sized to its content, so it must never show a scrollbar of its own.
    frame.setAttribute('scrolling', 'no');
    Object.assign(frame.style, { border: '0', width: '100%', display: 'block', overflow: 'hidden' });

    const onMessage = (event: MessageEvent) => {
      const message = acceptMessage(event, { origin: checkoutOrigin, source: frame.contentWindow });
      if (!message) return;
      const type = message.type;
      if (type == 'checkout:escape') return onEscape?.();
      if (type == 'checkout:resize') {
        // Writing an unchanged height would still cost a layout pass on the merchant page.
        if (message.height == height) return;
        frame.style.height = (height = message.height) + 'px';
      }
      // Completed/cancelled are final: a reloaded frame repeating them must not pay twice in
      // the merchant's bookkeeping or navigate twice.
      const final = message.type == 'checkout:completed' || message.type == 'checkout:cancelled';
      if (final && settled) return;
      settled ||= final;
      const callback = {
        'checkout:ready': options.onReady,
        'checkout:completed': options.onComplete,
        'checkout:cancelled': options.onCancel,
        'checkout:error': options.onError,
      }[type as string] as ((m: CheckoutMessage) => unknown) | undefined;
      const stay = callback?.(message) === false;
      const notPrevented = element.dispatchEvent(
        new CustomEvent(type, { detail: message, bubbles: true, cancelable: true }),
      );
      if (final && !stay && notPrevented && isHttpUrl(message.redirect)) win.location.assign(message.redirect);
    };

    win.addEventListener('message', onMessage);
    element.replaceChildren(frame);
    return {
      destroy() {
        win.removeEventListener('message', onMessage);
        frame.remove();
      },
    };
  };

  return {
    version: 1,
    mount: (element, options) => embed(element, options),
    open(options) {
      const doc = document;
      const root = doc.documentElement;
      const previousFocus = doc.activeElement as HTMLElement | null;
      const previousOverflow = root.style.overflow;
      const [title, closeName] = labels(options.language);
      // A modal <dialog> gives the top layer (above any merchant z-index), makes the page
      // behind inert (focus trap, hidden from assistive tech) and turns Escape into `cancel`.
      const dialog = doc.createElement('dialog');
      const panel = doc.createElement('div');
      const bar = doc.createElement('div');
      const heading = doc.createElement('h2');
      const button = doc.createElement('button');
      // A visible title names the dialog, for everyone alike.
      heading.id = 'checkout-dialog-title';
      heading.textContent = title!;
      dialog.setAttribute('aria-labelledby', heading.id);
      Object.assign(dialog.style, {
        width: '100%', height: '100%', maxWidth: 'none', maxHeight: 'none', margin: '0',
        padding: '0', border: '0', background: 'rgba(0,0,0,.6)', overflow: 'auto',
      });
      Object.assign(panel.style, {
        maxWidth: '32rem', margin: '5vh auto', background: '#fff', borderRadius: '8px', overflow: 'hidden',
      });
      button.type = 'button';
      // showModal() focuses it directly; without, it would focus the first guard, which
      // passes focus through the frame (and asks the frame for its last control) first.
      button.autofocus = true;
      button.textContent = '×';
      button.setAttribute('aria-label', closeName!);
      Object.assign(bar.style, { display: 'flex', alignItems: 'center', justifyContent: 'space-between' });
      Object.assign(heading.style, { margin: '0', padding: '0 16px', color: '#222', font: '600 16px/1.4 sans-serif' });
      Object.assign(button.style, {
        padding: '8px 14px', border: '0', background: 'none',
        color: '#222', font: '28px/1 sans-serif', cursor: 'pointer',
      });
      bar.append(heading, button);

      const frame = embed(panel, options, () => close());
      const iframe = panel.firstChild as HTMLIFrameElement;
      // A modal dialog alone lets Tab leave for the browser's own UI; these guards wrap it
      // around inside the dialog instead.
      const guard = (onfocus: () => void) => {
        const span = doc.createElement('span');
        span.tabIndex = 0;
        span.onfocus = onfocus;
        return span;
      };
      // Shift+Tab from the close button: the page can focus only the frame itself, not a
      // control inside it (cross-origin), so it asks the frame to focus its last control,
      // posting to the checkout origin only.
      panel.prepend(
        guard(() => {
          iframe.focus();
          iframe.contentWindow?.postMessage({ type: FOCUS_LAST, version: PROTOCOL_VERSION }, checkoutOrigin);
        }),
        bar,
      );
      panel.append(guard(() => button.focus()));
      dialog.append(panel);
      doc.body.append(dialog);
      dialog.showModal();
      root.style.overflow = 'hidden';

      const close = () => {
        if (!dialog.isConnected) return;
        frame.destroy();
        dialog.remove();
        root.style.overflow = previousOverflow;
        previousFocus?.focus();
        options.onClose?.();
      };
      button.onclick = close;
      dialog.oncancel = (event) => {
        event.preventDefault();
        close();
      };
      return { close, destroy: close };
    },
  };
}
