// The icons are drawn by the stylesheet (styles.css, `.icon--<name>`: each shape a mask
// painted in `currentColor`, so it follows the colour scheme): the page's script carries
// only a class name, not the SVG (issue 29). `img-src data:` in the page's CSP allows them.
export type IconName = 'lock' | 'clock' | 'check' | 'alert' | 'cross' | 'hourglass' | 'search' | 'external' | 'back' | 'print';

/** A decorative icon; `class` adds a size or colour (`icon--sm`, `alert__icon`). */
export function Icon({ name, class: className }: { name: IconName; class?: string }) {
  return <span class={`icon icon--${name}${className ? ` ${className}` : ''}`} aria-hidden="true" />;
}
