import type { TargetedInputEvent } from 'preact';
import { useScreen } from '../context';
import { brandName, cardBrand, cvcLength, errorVars, type CardBrand } from '../../fields/card';
import { formatterFor, reformat } from '../card-format';
import type { MessageKey } from '../../i18n/messages';
import type { GatewayField } from '../view';

export const fieldId = (name: string) => `field-${name}`;

// Room for the digits plus what the screen or the customer puts between them.
const MAX_LENGTH: Partial<Record<GatewayField['validate'], number>> = {
  'card-number': 23,
  'card-expiry': 9,
};

/** The networks shown beside the card number label, short; names, so not translated. */
const ACCEPTED: [CardBrand, string][] = [
  ['visa', 'Visa'],
  ['mastercard', 'Mastercard'],
  ['amex', 'Amex'],
];

/** Formats as the customer types, and puts the caret back after the digit it followed. */
function onFormattedInput(field: GatewayField, event: TargetedInputEvent<HTMLInputElement>): string {
  const input = event.currentTarget;
  const format = formatterFor(field.validate);
  if (!format) return input.value;
  const deleting = (event as unknown as InputEvent).inputType?.startsWith('delete') ?? false;
  const next = reformat(format, input.value, input.selectionStart ?? input.value.length, deleting);
  if (next.value !== input.value) {
    input.value = next.value;
    if (document.activeElement === input) input.setSelectionRange(next.caret, next.caret);
  }
  return next.value;
}

export function Field({ field }: { field: GatewayField }) {
  const { model, i18n } = useScreen();
  const id = fieldId(field.name);
  const value = model.values.value[field.name] ?? '';
  const errorKey = model.fieldErrors.value[field.name];
  const numberField = model.gateway.value?.fields.find((f) => f.validate === 'card-number');
  const cardNumber = numberField ? model.values.value[numberField.name] : undefined;
  const vars = errorVars(errorKey ?? '', { cardNumber });
  const error = errorKey ? i18n.t(i18n.has(errorKey) ? errorKey : 'error.generic', vars) : null;
  const isNumber = field.validate === 'card-number';
  const detected = isNumber ? cardBrand(value) : null;
  const brand = brandName(detected);
  const numeric = field.inputMode === 'numeric';
  const email = field.validate === 'optional-email';
  const placeholderKey = `${field.label}.placeholder`;
  // Where the security code is printed depends on the brand the number shows.
  const digits = cvcLength(cardNumber);
  const hintKey: MessageKey | null = field.validate === 'card-cvc' ? (digits === 4 ? 'card.cvc.hintFront' : 'card.cvc.hint') : null;
  const describedBy = [hintKey && `${id}-hint`, brand && `${id}-brand`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class={`field field--${field.validate}${error ? ' field--invalid' : ''}`}>
      <div class="field__top">
        <label class="field__label" for={id}>
          {i18n.has(field.label) ? i18n.t(field.label) : field.label}
        </label>
        {isNumber && (
          <ul class="brands" aria-label={i18n.t('card.accepted')}>
            {ACCEPTED.map(([code, name]) => (
              <li class={detected && detected !== code ? 'brands__item brands__item--off' : 'brands__item'} key={code}>
                {name}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div class="field__control">
        <input
          class="field__input"
          id={id}
          name={field.name}
          // One type as Preact's typings see it: both are plain text boxes.
          type={(email ? 'email' : 'text') as 'text'}
          value={value}
          placeholder={i18n.has(placeholderKey) ? i18n.t(placeholderKey) : undefined}
          autocomplete={field.autocomplete}
          inputmode={numeric ? 'numeric' : undefined}
          spellcheck={false}
          autocapitalize={numeric ? 'off' : undefined}
          maxLength={field.validate === 'card-cvc' ? (cardBrand(cardNumber ?? '') ? digits : 4) : MAX_LENGTH[field.validate]}
          aria-required={email ? undefined : 'true'}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={describedBy || undefined}
          disabled={model.pending.value !== null}
          onInput={(event) => model.setField(field.name, onFormattedInput(field, event))}
          onBlur={() => model.checkField(field.name)}
        />
        {/* Seen in the accepted brands above (the others dim); heard with the number. A
            badge inside the field hid the last digits on a phone and showed the brand twice. */}
        {brand && (
          <span class="sr-only" id={`${id}-brand`}>
            {brand}
          </span>
        )}
      </div>
      {hintKey && (
        <p class="field__hint" id={`${id}-hint`}>
          {i18n.t(hintKey, { digits })}
        </p>
      )}
      {/* Always present, so the error a blur brings is announced when it appears. */}
      <p class="field__error" id={`${id}-error`} aria-live="polite">
        {error}
      </p>
    </div>
  );
}
