// The parts of the screen the page's script does not carry (issue 29). Two never change
// once the server has rendered them, the order's lines and totals and the language
// switcher: the browser keeps the server's markup as it is (KEPT_PARTS), so their code,
// their words and the order's lines stay out of the page's script and state. The result
// of a closed payment is loaded when one is shown (result-loader.tsx). The server renders
// them all (server-parts.ts).
import type { ComponentType } from 'preact';
import type { Translator } from '../../i18n/messages';
import type { ResultStatus } from './Outcome';

export interface ScreenParts {
  /** The order's details under the total (a <details class="summary">), payments only. */
  OrderSummary: ComponentType;
  /** The language switcher in the footer (a <nav class="languages">). */
  Languages: ComponentType<{ i18n: Translator }>;
  /** The result of a closed payment, in place of the form. */
  Result: ComponentType<{ status: ResultStatus }>;
}

/**
 * An element the browser leaves as the server rendered it: Preact neither hydrates nor
 * re-renders what is under an element with dangerouslySetInnerHTML, and the same empty
 * value on each render never rewrites it. Its tag and class must be the server's.
 */
const kept = (Tag: 'details' | 'nav', className: string) =>
  function Kept() {
    return <Tag class={className} dangerouslySetInnerHTML={{ __html: '' }} />;
  };

export const KEPT_PARTS: Omit<ScreenParts, 'Result'> = {
  OrderSummary: kept('details', 'summary'),
  Languages: kept('nav', 'languages'),
};
