// The overlay's dialog, drawn by the checkout frame's own page when the loader opened it
// as an overlay (`Checkout.open`): the loader only puts one transparent frame over the
// merchant's page, with a backdrop, and removes it when asked (`checkout:close`). Here:
// the dialog box, its title and close button in the screen's language, focus kept inside,
// and the close button focused first. Part of the frame bridge's chunk, so only the embed
// page loads it. Its styles are the screen's stylesheet's (`.overlay…` in
// widget/screen/styles.css), which the frame's page has: the script names classes only.

/** The dialog's title and its close button's name, in the screen's language (locales/: `overlay.*`). */
export interface OverlayWords {
  title: string;
  close: string;
}

// Everything that can take focus by itself; what is disabled, hidden or out of the tab order
// is filtered below.
const FOCUSABLE = 'a[href],area[href],button,input,select,textarea,iframe,summary,[tabindex],[contenteditable]';

/**
 * Focuses the last control Tab can reach in `scope` (what Shift+Tab from a close button
 * should land on), trying the previous one whenever focus does not take.
 */
export function focusLastControl(scope: ParentNode = document): HTMLElement | null {
  const controls = [...scope.querySelectorAll<HTMLElement>(FOCUSABLE)];
  for (let i = controls.length - 1; i >= 0; i--) {
    const el = controls[i]!;
    const radio = el instanceof HTMLInputElement && el.type == 'radio' && el.name ? el : null;
    if (
      el.tabIndex < 0 ||
      el.matches(':disabled') ||
      el.closest('[inert]') ||
      // display: none (itself or an ancestor, type=hidden too) has no boxes.
      !el.getClientRects().length ||
      getComputedStyle(el).visibility != 'visible' ||
      // Tab reaches a radio group on its checked button only, if it has one.
      (radio && !radio.checked && radio.form?.querySelector(`input[type=radio][name="${CSS.escape(radio.name)}"]:checked`))
    )
      continue;
    el.focus();
    if (document.activeElement === el) return el;
  }
  return null;
}

function styled<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string): HTMLElementTagNameMap[K] {
  const element = doc.createElement(tag);
  element.className = className;
  return element;
}

/**
 * Moves everything the body holds into a dialog box with a title bar, focuses its close
 * button, and returns the box's content (where the screen's controls are). `close` runs on
 * the close button (Escape is the bridge's). Tab and Shift+Tab wrap around inside the box:
 * one guard before the title bar hands focus to the screen's last control, one after the
 * screen back to the close button, so focus never leaves the frame for the merchant's page
 * behind.
 */
export function drawOverlay(doc: Document, close: () => void, { title, close: closeName }: OverlayWords): HTMLElement {
  // The root keeps the merchant page's colour scheme (light), as a frame whose scheme
  // differs from its <iframe>'s is painted opaque; the dialog takes the screen's.
  doc.documentElement.style.colorScheme = 'light';
  const backdrop = styled(doc, 'div', 'overlay');
  const dialog = styled(doc, 'div', 'overlay__dialog');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  // The visible title's words name the dialog.
  dialog.setAttribute('aria-label', title);
  const bar = styled(doc, 'div', 'overlay__bar');
  const heading = styled(doc, 'h2', 'overlay__title');
  heading.textContent = title;
  const button = styled(doc, 'button', 'overlay__close');
  button.type = 'button';
  button.textContent = '×';
  button.setAttribute('aria-label', closeName);
  button.onclick = close;
  bar.append(heading, button);
  const content = doc.createElement('div');
  content.append(...doc.body.childNodes);
  const guard = (onfocus: () => void) => {
    const span = doc.createElement('span');
    span.tabIndex = 0;
    span.onfocus = onfocus;
    return span;
  };
  dialog.append(
    guard(() => focusLastControl(content) ?? button.focus()),
    bar,
    content,
    guard(() => button.focus()),
  );
  backdrop.append(dialog);
  doc.body.append(backdrop);
  button.focus();
  return content;
}
