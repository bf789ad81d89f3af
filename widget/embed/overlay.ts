// The checkout frame in a modal overlay (`Checkout.open`): a <dialog> with a title and a
// close button, focus kept inside it, the page behind it still, and everything undone on
// close. Styles through element.style only (merchant pages may have a strict CSP).

import { FOCUS_LAST, PROTOCOL_VERSION } from './protocol';
import type { OpenOptions, OverlayHandle } from './checkout';
import { mountFrame, styled } from './frame';

export function openOverlay(checkoutOrigin: string, options: OpenOptions): OverlayHandle {
  const doc = document;
  const rootStyle = doc.documentElement.style;
  const previousFocus = doc.activeElement as HTMLElement | null;
  const previousOverflow = rootStyle.overflow;
  // A modal <dialog> gives the top layer (above any merchant z-index), makes the page
  // behind inert (focus trap, hidden from assistive tech) and turns Escape into `cancel`.
  const dialog = styled(
    'dialog',
    // The whole viewport: min-width/height win over the modal's own max-width/height.
    'min-width:100%;min-height:100%;margin:0;padding:0;border:0;background:#0009;overflow:auto',
  );
  const panel = styled('div', 'max-width:32rem;margin:5vh auto;background:#fff;border-radius:8px;overflow:hidden');
  const bar = styled('div', 'display:flex;align-items:center');
  // flex:1 keeps the close button at the bar's end.
  const heading = styled('h2', 'flex:1;margin:0;padding:0 16px;color:#222;font:600 16px/1.4 sans-serif');
  // Outside any form, so it submits nothing: no type needed.
  const button = styled('button', 'padding:8px 14px;border:0;background:none;color:#222;font:28px/1 sans-serif;cursor:pointer');
  // A modal dialog alone lets Tab leave for the browser's own UI; these guards wrap it
  // around inside the dialog instead.
  const guard = (onfocus: () => void) => {
    const span = styled('span', '');
    span.tabIndex = 0;
    span.onfocus = onfocus;
    return span;
  };
  const close = () => {
    if (!dialog.isConnected) return;
    frame.destroy();
    dialog.remove();
    rootStyle.overflow = previousOverflow;
    previousFocus?.focus();
    options.onClose?.();
  };
  // showModal() focuses it directly; without, it would focus the first guard, which
  // passes focus through the frame (and asks the frame for its last control) first.
  button.autofocus = true;
  button.textContent = '×';
  bar.append(heading, button);

  // The visible title's words name the dialog, for everyone alike; they and the close
  // button's follow the language the frame shows once it says (mountFrame's onLabels).
  const frame = mountFrame(checkoutOrigin, panel, options, close, ([title, closeName]) => {
    heading.textContent = title!;
    dialog.setAttribute('aria-label', title!);
    button.setAttribute('aria-label', closeName!);
  });
  const iframe = panel.firstChild as HTMLIFrameElement;
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
  rootStyle.overflow = 'hidden';
  button.onclick = close;
  dialog.oncancel = (event) => {
    event.preventDefault();
    close();
  };
  return { close, destroy: close };
}
