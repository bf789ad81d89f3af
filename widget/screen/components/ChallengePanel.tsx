import type { Translator } from '../../i18n/messages';
import type { ChallengeAnswer } from '../transport';

export const CHALLENGE_TITLE_ID = 'challenge-title';
export const CHALLENGE_BODY_ID = 'challenge-body';

const ANSWERS: { answer: ChallengeAnswer; label: 'challenge.complete' | 'challenge.fail' | 'challenge.abandon'; primary: boolean }[] = [
  { answer: 'completed', label: 'challenge.complete', primary: true },
  { answer: 'failed', label: 'challenge.fail', primary: false },
  { answer: 'abandoned', label: 'challenge.abandon', primary: false },
];

/**
 * The sandbox issuer's challenge: what the customer is asked and the answers. One markup
 * for the full-page step (a form that posts, no script: `csrf`) and the page's dialog
 * (`onAnswer`: buttons that call the model).
 */
export function ChallengePanel(props: {
  i18n: Translator;
  merchant: string;
  amount: string;
  /** h1 on its own page, h2 inside the payment page's dialog. */
  heading: 'h1' | 'h2';
  /** Saving a card (/pay/sav_…/): nothing is paid, so the words say so. */
  saving?: boolean;
  csrf?: string;
  onAnswer?: (answer: ChallengeAnswer) => void;
}) {
  const { i18n, onAnswer } = props;
  const Heading = props.heading;
  return (
    <div class="challenge">
      <Heading id={CHALLENGE_TITLE_ID} class="challenge__title">
        {i18n.t('challenge.heading')}
      </Heading>
      <p id={CHALLENGE_BODY_ID}>{i18n.t(props.saving ? 'challenge.bodySave' : 'challenge.body', { merchant: props.merchant, amount: props.amount })}</p>
      <p class="challenge__note">{i18n.t('challenge.sandbox')}</p>
      <form method="post" class="challenge__actions">
        {props.csrf !== undefined && <input type="hidden" name="csrf" value={props.csrf} />}
        {ANSWERS.map(({ answer, label, primary }) => (
          <button
            key={answer}
            type={onAnswer ? 'button' : 'submit'}
            name="answer"
            value={answer}
            class={primary ? 'button button--primary' : 'button button--quiet'}
            onClick={onAnswer ? () => onAnswer(answer) : undefined}
          >
            {i18n.t(props.saving && answer === 'abandoned' ? 'challenge.abandonSave' : label)}
          </button>
        ))}
      </form>
    </div>
  );
}
