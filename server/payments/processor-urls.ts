import type { Config } from '../config';
import { REDSYS_LIVE_URL, REDSYS_TEST_URL } from './redsys/settings';

// Where processors are asked. Their own hosts, unless STRIPE_API_URL / STRIPE_FILES_URL /
// STRIPE_JS_URL / REDSYS_URL point them elsewhere: a test double on loopback, for tests only. Sandboxes then
// use the double; live environments use it only with PROCESSOR_URLS_IN_LIVE=true, so a
// setting left over from a test can never send a live key (and real customers' payments) to
// another host: without the flag, live gateways are built against the processor itself and a
// live environment cannot connect a processor while a setting is there (the operator sees
// why at once, rather than a live key being checked by a double).

const STRIPE_API = 'https://api.stripe.com';
const STRIPE_FILES = 'https://files.stripe.com';
const STRIPE_JS = 'https://js.stripe.com/v3/';

type Replaceable = 'stripeApi' | 'stripeFiles' | 'stripeJs' | 'redsys';

/** The replaced URL when this environment may use it, else the processor's own. */
function chosen(config: Config, which: Replaceable, live: boolean, own: string): string {
  const replaced = config.processorUrls[which];
  return replaced && (!live || config.processorUrls.inLive) ? replaced : own;
}

/** Where a live (or sandbox) environment's Stripe gateways send their requests. */
export const stripeApiUrl = (config: Config, live: boolean): string => chosen(config, 'stripeApi', live, STRIPE_API);

/** Where they send files (a dispute's evidence). */
export const stripeFilesUrl = (config: Config, live: boolean): string => chosen(config, 'stripeFiles', live, STRIPE_FILES);

/** Where the payment page loads Stripe.js from (the Payment Element). */
export const stripeJsUrl = (config: Config, live: boolean): string => chosen(config, 'stripeJs', live, STRIPE_JS);

/** Redsys's host for a live (production) or sandbox (test host) environment; its documented paths are appended. */
export const redsysUrl = (config: Config, live: boolean): string => chosen(config, 'redsys', live, live ? REDSYS_LIVE_URL : REDSYS_TEST_URL);

/** True when a live environment must not connect: a processor's URL is replaced, and not for live environments. */
export const replacedForTestsOnly = (config: Config): boolean =>
  !config.processorUrls.inLive && (config.processorUrls.stripeApi !== null || config.processorUrls.stripeFiles !== null || config.processorUrls.stripeJs !== null || config.processorUrls.redsys !== null);

/** The replaced URLs by variable name, for the warning at start and /health/ready; empty when none is. */
export function replacedProcessorUrls(config: Config): Record<string, string> {
  const { stripeApi, stripeFiles, stripeJs, redsys, inLive } = config.processorUrls;
  const replaced: Record<string, string> = {};
  if (stripeApi) replaced.STRIPE_API_URL = stripeApi;
  if (stripeFiles) replaced.STRIPE_FILES_URL = stripeFiles;
  if (stripeJs) replaced.STRIPE_JS_URL = stripeJs;
  if (redsys) replaced.REDSYS_URL = redsys;
  if (Object.keys(replaced).length && inLive) replaced.PROCESSOR_URLS_IN_LIVE = 'true';
  return replaced;
}
