import type { Config } from '../config';
import { fieldError } from '../http/problem';
import { refusedNotifyUrl } from '../notify/address';

/** A 400 for a notify_url that can already be seen to be private; deliveries check again. */
export function checkNotifyUrl(url: string, config: Config, path = 'notify_url'): void {
  if (config.allowPrivateNotifyUrls) return;
  const why = refusedNotifyUrl(url);
  // Named, so a developer trying a local receiver learns how a development service allows it.
  if (why) throw fieldError(path, `${why} (a service for development allows it with ALLOW_PRIVATE_NOTIFY_URLS=true)`);
}
