import type { Config } from '../config';
import { fieldError } from '../http/problem';
import { refusedNotifyUrl } from '../notify/address';

/** A 400 for a notify_url that can already be seen to be private; deliveries check again. */
export function checkNotifyUrl(url: string, config: Config): void {
  if (config.allowPrivateNotifyUrls) return;
  const why = refusedNotifyUrl(url);
  if (why) throw fieldError('notify_url', why);
}
