// The result of a closed payment (components/Outcome.tsx) in the browser: its own chunk,
// fetched only when a page shows a result, so no open page's view pays for it. It is
// fetched alongside the customer's pay, cancel or challenge answer (whose answer may be a
// result), before hydrating a page that opens on a result, and when the link expires.
import { effect, signal } from '@preact/signals-core';
import type { CheckoutDeps, CheckoutModel } from './model';
import type { CheckoutOutcome } from './transport';
import type { ResultStatus } from './components/Outcome';
import type { ScreenParts } from './components/parts';

const loaded = signal<ScreenParts['Result'] | null>(null);
let loading: Promise<boolean> | null = null;

/** Resolves true once the result can render; false if its chunk could not be fetched. */
export function loadResult(): Promise<boolean> {
  loading ??= import('./components/Outcome').then(
    (m) => ((loaded.value = m.ResultPanel), true),
    () => ((loading = null), false),
  );
  return loading;
}

/** The part as the browser renders it: nothing until the chunk is there (see followResults). */
export function LazyResult(props: { status: ResultStatus }) {
  const Panel = loaded.value;
  return Panel ? <Panel {...props} /> : null;
}

/**
 * `deps` whose requests also fetch the result's chunk, and answer once both are there,
 * after `learn` has taken the words the answer brings (client-strings.ts).
 */
export function withResult(
  deps: Pick<CheckoutDeps, 'submit' | 'answer'>,
  learn: (words: Record<string, string>) => void,
): Pick<CheckoutDeps, 'submit' | 'answer'> {
  const both = (request: Promise<CheckoutOutcome>) =>
    Promise.all([request, loadResult()]).then(([answer]) => {
      // No words with an answer the screen must show: an instance older than this page
      // answered (a deploy under way). The page is asked for again, whole, from whichever
      // instance answers, rather than shown with keys in place of words; it never settles.
      if (!answer.strings && shownInPage(answer)) return (location.reload(), new Promise<never>(() => {}));
      learn(answer.strings ?? {});
      return answer;
    });
  return {
    submit: (request, csrf) => both(deps.submit(request, csrf)),
    answer: (url, answer, csrf) => both(deps.answer(url, answer, csrf)),
  };
}

/** An answer the screen renders (a view, the paid screen before the shop, the challenge), not one it leaves the page for. */
const shownInPage = (answer: CheckoutOutcome) => answer.outcome === 'view' || answer.view !== undefined || answer.kind === 'challenge';

/**
 * A result the chunk was not there for (the link expired on the page, or the chunk failed
 * alongside a request): fetched now, then the focus goes to its title as the model asked;
 * without it, the server renders the page's result.
 */
export function followResults(model: CheckoutModel): void {
  effect(() => {
    if (model.payable.value || loaded.peek()) return;
    void loadResult().then((ok) => (ok ? document.getElementById('status-title')?.focus() : location.reload()));
  });
}
