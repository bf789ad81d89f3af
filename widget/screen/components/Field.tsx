import { useScreen } from '../context';
import { brandName, cardBrand, errorVars } from '../../fields/card';
import type { GatewayField } from '../view';

export const fieldId = (name: string) => `field-${name}`;

// Room for digits plus the spaces customers type between groups.
const MAX_LENGTH: Partial<Record<GatewayField['validate'], number>> = {
  'card-number': 23,
  'card-expiry': 7,
  'card-cvc': 4,
};

export function Field({ field }: { field: GatewayField }) {
  const { model, i18n } = useScreen();
  const id = fieldId(field.name);
  const value = model.values.value[field.name] ?? '';
  const errorKey = model.fieldErrors.value[field.name];
  const cardNumber = model.gateway.value?.fields.find((f) => f.validate === 'card-number');
  const vars = errorVars(errorKey ?? '', { cardNumber: cardNumber ? model.values.value[cardNumber.name] : undefined });
  const error = errorKey ? i18n.t(i18n.has(errorKey) ? errorKey : 'error.generic', vars) : null;
  const brand = field.validate === 'card-number' ? brandName(cardBrand(value)) : null;
  const numeric = field.inputMode === 'numeric';
  return (
    <div class={`field field--${field.validate}${error ? ' field--invalid' : ''}`}>
      <label class="field__label" for={id}>
        {i18n.has(field.label) ? i18n.t(field.label) : field.label}
      </label>
      <div class="field__control">
        <input
          class="field__input"
          id={id}
          name={field.name}
          type="text"
          value={value}
          autocomplete={field.autocomplete}
          inputmode={numeric ? 'numeric' : undefined}
          spellcheck={false}
          autocapitalize={numeric ? 'off' : undefined}
          maxLength={MAX_LENGTH[field.validate]}
          aria-required="true"
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          disabled={model.pending.value !== null}
          onInput={(event) => model.setField(field.name, event.currentTarget.value)}
          onBlur={() => model.checkField(field.name)}
        />
        {brand && (
          <span class="field__brand" aria-hidden="true">
            {brand}
          </span>
        )}
      </div>
      {error && (
        <p class="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
