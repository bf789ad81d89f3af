import type { Request } from 'express';
import { z } from 'zod';
import { formBodyFailure } from './form-body';

// The customer's answer to an issuer's challenge, as every page that runs one reads it
// (a payment's, challenge-routes.ts; a save page's, save-routes.ts; a sign-up's,
// signup-routes.ts): the screen's dialog posts JSON with the CSRF token in a header, the
// no-JavaScript page a form with it in a field.

const challengeRequest = z.object({ answer: z.enum(['completed', 'failed', 'abandoned']), csrf: z.string().max(128).optional() });
export type ChallengeAnswerPosted = z.infer<typeof challengeRequest>['answer'];

/** Why an answer is not taken: the status to answer with and the message to show. */
export interface AnswerRefused {
  status: 400 | 403 | 413 | 415;
  message: 'error.generic' | 'error.session';
}

/**
 * The posted answer, or why it is refused: an unreadable or malformed body, or a post not
 * from this page (`trusted` checks its origin and CSRF token).
 */
export async function readChallengeAnswer(
  req: Request,
  page: { wantsJson: boolean },
  trusted: (csrf: string | undefined) => boolean | Promise<boolean>,
): Promise<{ answer: ChallengeAnswerPosted } | { refused: AnswerRefused }> {
  const unreadable = formBodyFailure(req);
  if (unreadable) return { refused: { status: unreadable, message: 'error.generic' } };
  const parsed = challengeRequest.safeParse(page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : req.body);
  if (!parsed.success) return { refused: { status: 400, message: 'error.generic' } };
  if (!(await trusted(parsed.data.csrf))) return { refused: { status: 403, message: 'error.session' } };
  return { answer: parsed.data.answer };
}
