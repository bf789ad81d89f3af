import type { Config } from '../config';
import { type FieldError, fieldError } from '../http/problem';
import { refusedNotifyUrl } from '../notify/address';

/** Why a notify_url can already be seen to be private (deliveries check again); undefined when it cannot. */
export function notifyUrlRefusal(url: string, config: Config, path = 'notify_url'): FieldError | undefined {
  if (config.allowPrivateNotifyUrls) return undefined;
  const why = refusedNotifyUrl(url);
  // Named, so a developer trying a local receiver learns how a development service allows it.
  return why ? { path, message: `${why} (a service for development allows it with ALLOW_PRIVATE_NOTIFY_URLS=true)` } : undefined;
}

/** A 400 for a notify_url that can already be seen to be private. */
export function checkNotifyUrl(url: string, config: Config, path = 'notify_url'): void {
  const refusal = notifyUrlRefusal(url, config, path);
  if (refusal) throw fieldError(refusal.path, refusal.message);
}
