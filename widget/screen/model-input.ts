// What the customer types and picks before sending anything: the payment method, the
// fields, and the judgement of each field as they go.
import { batch } from '@preact/signals-core';
import { impossibleExpiry, validateField, type ValidationContext } from '../fields/card';
import type { ModelState } from './model-state';

function validationContext(m: ModelState): ValidationContext {
  const numberField = m.gateway.value?.fields.find((field) => field.validate === 'card-number');
  return { now: m.now.value, cardNumber: numberField ? m.values.value[numberField.name] : undefined };
}

function clearError(m: ModelState, name: string): void {
  if (!(name in m.fieldErrors.value)) return;
  const { [name]: _, ...rest } = m.fieldErrors.value;
  m.fieldErrors.value = rest;
}

export function selectGateway(m: ModelState, id: string): void {
  if (m.pending.value || id === m.gatewayId.value) return;
  batch(() => {
    m.gatewayId.value = id;
    // Errors belonged to the previous method's fields.
    m.fieldErrors.value = {};
    m.message.value = null;
  });
}

export function setField(m: ModelState, name: string, value: string): void {
  batch(() => {
    m.values.value = { ...m.values.value, [name]: value };
    // An error disappears as soon as the customer starts fixing it, and appears mid-typing
    // only when no further keystroke could make the value valid (a 13th month).
    clearError(m, name);
    const field = m.gateway.value?.fields.find((candidate) => candidate.name === name);
    const impossible = field?.validate === 'card-expiry' ? impossibleExpiry(value) : null;
    if (impossible) m.fieldErrors.value = { ...m.fieldErrors.value, [name]: impossible };
  });
}

/** On leaving a field: judge what was typed, but an untouched empty field is not an error yet. */
export function checkField(m: ModelState, name: string): void {
  const field = m.gateway.value?.fields.find((candidate) => candidate.name === name);
  const value = m.values.value[name] ?? '';
  if (!field || value.trim() === '') return;
  const error = validateField(field.validate, value, validationContext(m));
  if (error) m.fieldErrors.value = { ...m.fieldErrors.value, [name]: error };
}

/** Seeds what the customer typed or picked before the script arrived. */
export function restoreInputs(m: ModelState, gatewayChoice: string | null, typed: Record<string, string>): void {
  batch(() => {
    if (gatewayChoice && m.view.value.gateways.some((option) => option.id === gatewayChoice)) {
      m.gatewayId.value = gatewayChoice;
    }
    m.values.value = { ...m.values.value, ...typed };
  });
}
