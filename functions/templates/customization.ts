// Customization values against a template's fields: defaults applied, every value checked
// against its field's type and attributes, and the NEXT_PUBLIC_ names the page's build sees.
import { ValidationError } from '#platform/errors.js';
import type { CustomizationField } from './schemas.js';

export type CustomizationValue = string | number | boolean;

const hexColor = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;

/** `theme.primaryColor` -> `NEXT_PUBLIC_THEME_PRIMARYCOLOR`. */
export const publicEnvName = (key: string) => `NEXT_PUBLIC_${key.toUpperCase().replace(/\./g, '_')}`;

function refuse(field: CustomizationField, value: unknown, why: string): never {
  throw new ValidationError(`customization.${field.key}`, value, `customization ${field.key}: ${why}`, { key: field.key });
}

function checked(field: CustomizationField, value: CustomizationValue): CustomizationValue {
  switch (field.type) {
    case 'color':
      if (typeof value !== 'string' || !hexColor.test(value)) refuse(field, value, 'must be a hex color such as #1a2b3c');
      return value;
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) refuse(field, value, 'must be a number');
      if (field.min !== undefined && value < field.min) refuse(field, value, `must be at least ${field.min}`);
      if (field.max !== undefined && value > field.max) refuse(field, value, `must be at most ${field.max}`);
      if (field.step !== undefined) {
        const steps = (value - (field.min ?? 0)) / field.step;
        // Tolerance for binary fractions: 0.3 / 0.1 is 2.9999999999999996.
        if (Math.abs(steps - Math.round(steps)) > 1e-9)
          refuse(field, value, `must be a multiple of ${field.step}${field.min !== undefined ? ` from ${field.min}` : ''}`);
      }
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean') refuse(field, value, 'must be true or false');
      return value;
    case 'string':
      if (typeof value !== 'string') refuse(field, value, 'must be a string');
      if (field.maxLength !== undefined && value.length > field.maxLength) refuse(field, value, `must be at most ${field.maxLength} characters`);
      return value;
    case 'select':
      if (typeof value !== 'string' || !field.options.includes(value)) refuse(field, value, `must be one of ${field.options.join(', ')}`);
      return value;
  }
}

/** The full set of values: given ones checked, missing ones defaulted; an unknown key is refused. */
export function resolveCustomization(fields: CustomizationField[], given: Record<string, CustomizationValue>): Record<string, CustomizationValue> {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  for (const [key, value] of Object.entries(given)) {
    if (!byKey.has(key)) throw new ValidationError(`customization.${key}`, value, `customization ${key}: the template has no such field`, { key });
  }
  return Object.fromEntries(fields.map((field) => [field.key, key(field, given)]));
}

const key = (field: CustomizationField, given: Record<string, CustomizationValue>) => (field.key in given ? checked(field, given[field.key]!) : field.default);

/** A template's own fields must hold valid defaults (a repository is hostile input too). */
export function fieldProblems(fields: CustomizationField[]): string | undefined {
  const seen = new Set<string>();
  for (const field of fields) {
    const name = publicEnvName(field.key);
    if (seen.has(name)) return `customization key ${field.key} repeats another key's variable ${name}`;
    seen.add(name);
    try {
      checked(field, field.default);
    } catch (error) {
      return `default of ${(error as Error).message}`;
    }
  }
  return undefined;
}

export const publicEnv = (values: Record<string, CustomizationValue>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [publicEnvName(name), String(value)]));
