import { z } from 'zod';

// How the developer tools (listen, trigger) reach a service: its URL and an environment's
// key pair, from --api / --key or PAYMENT_API_URL / PAYMENT_KEY. They are clients of the
// public API like any merchant's code: nothing here touches the service's database.

const settings = z.object({
  api: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL of the service, e.g. http://localhost:3000' }).transform((u) => u.replace(/\/+$/, '').replace(/\/v1$/, '')),
  key: z
    .string({ error: 'is missing' })
    .regex(/^[^:\s]+:[^:\s]+$/, 'must be <public key>:<secret key>'),
});

export interface Connection {
  /** The service's origin, without /v1. */
  api: string;
  publicKey: string;
  secretKey: string;
  /** GET or POST a JSON path under /v1; throws with the problem's detail on an error answer. */
  call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
}

export class ApiCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The connection from the options given, else the environment; a readable error otherwise. */
export function connect(options: { api?: string; key?: string }, env: NodeJS.ProcessEnv): Connection {
  const parsed = settings.safeParse({ api: options.api ?? env.PAYMENT_API_URL, key: options.key ?? env.PAYMENT_KEY });
  if (!parsed.success) {
    const names: Record<string, string> = { api: '--api (or PAYMENT_API_URL)', key: '--key (or PAYMENT_KEY)' };
    throw new Error(parsed.error.issues.map((i) => `${names[String(i.path[0])] ?? String(i.path[0])} ${i.message}`).join('; '));
  }
  const { api, key } = parsed.data;
  const [publicKey, secretKey] = key.split(':') as [string, string];
  const authorization = `AppKeys ${publicKey}:${secretKey}`;
  return {
    api,
    publicKey,
    secretKey,
    async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) {
      const res = await fetch(`${api}/v1${path}`, {
        method,
        signal,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) {
        let detail = text.slice(0, 300);
        try {
          const problem = JSON.parse(text) as { detail?: string; errors?: { path: string; message: string }[] };
          detail = [problem.detail, ...(problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].filter(Boolean).join('; ');
        } catch {
          // Not a problem body: its first characters say enough.
        }
        throw new ApiCallError(`${method} /v1${path} answered ${res.status}: ${detail}`, res.status);
      }
      return JSON.parse(text) as T;
    },
  };
}
