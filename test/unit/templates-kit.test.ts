// Rules of the templates area that need no I/O: customization values, NEXT_PUBLIC_ names, subdomains, log caps.
import { describe, expect, it } from 'vitest';
import { capLogs } from '../../functions/templates/builds.js';
import { fieldProblems, publicEnv, publicEnvName, resolveCustomization } from '../../functions/templates/customization.js';
import { CustomizationField } from '../../functions/templates/schemas.js';
import { dnsLabel } from '../../functions/platform/dns-label.js';
import { newSubdomain } from '../../functions/templates/subdomain.js';
import { customizationFields } from '../support/templates.js';

const fields = customizationFields.map((field) => CustomizationField.parse(field));

describe('templates kit: customization', () => {
  it('applies defaults for missing values and keeps given ones', () => {
    // Act
    const values = resolveCustomization(fields, { 'layout.columns': 4, 'features.darkMode': true });
    // Assess
    expect(values).toEqual({ 'theme.primaryColor': '#112233', 'layout.columns': 4, 'features.darkMode': true, 'hero.title': 'Hello', 'layout.style': 'grid' });
  });

  it('names each value NEXT_PUBLIC_<KEY UPPER, dots as underscores>', () => {
    // Act / Assess
    expect(publicEnvName('theme.primaryColor')).toBe('NEXT_PUBLIC_THEME_PRIMARYCOLOR');
    expect(publicEnv({ 'a.b.c': 1, flag: false })).toEqual({ NEXT_PUBLIC_A_B_C: '1', NEXT_PUBLIC_FLAG: 'false' });
  });

  it('accepts a number on its step from min, binary fractions included', () => {
    // Prepare
    const [field] = [CustomizationField.parse({ key: 'x', type: 'number', min: 0.1, max: 1, step: 0.1, default: 0.1 })];
    // Act / Assess
    expect(resolveCustomization([field!], { x: 0.3 })).toEqual({ x: 0.3 });
    expect(() => resolveCustomization([field!], { x: 0.35 })).toThrow(/multiple of 0.1 from 0.1/);
  });

  it('finds templates whose fields clash or whose defaults break their own rules', () => {
    // Act / Assess
    expect(fieldProblems(fields)).toBeUndefined();
    expect(fieldProblems([...fields, CustomizationField.parse({ key: 'theme.primarycolor', type: 'boolean', default: true })])).toMatch(
      /repeats another key's variable NEXT_PUBLIC_THEME_PRIMARYCOLOR/,
    );
    expect(fieldProblems([CustomizationField.parse({ key: 's', type: 'select', options: ['a'], default: 'b' })])).toMatch(/must be one of a/);
  });
});

describe('templates kit: subdomains and logs', () => {
  it('makes subdomains that are DNS labels, readable and distinct', () => {
    // Act
    const made = [newSubdomain('My Landing Page!'), newSubdomain('???'), newSubdomain('x'.repeat(100)), newSubdomain('Café déjà vu')];
    // Assess
    for (const sub of made) expect(sub).toMatch(dnsLabel);
    expect(made[0]).toMatch(/^my-landing-page-[a-z0-9]{10}$/);
    expect(made[1]).toMatch(/^site-[a-z0-9]{10}$/);
    expect(made[2]!.length).toBeLessThanOrEqual(63);
    expect(made[3]).toMatch(/^cafe-deja-vu-/);
    expect(newSubdomain('a')).not.toBe(newSubdomain('a'));
  });

  it('keeps the tail of long logs within the item budget, saying how much was dropped', () => {
    // Prepare
    const lines = Array.from({ length: 500 }, (_, index) => `${index} ${'x'.repeat(1500)}`);
    // Act
    const capped = capLogs(lines);
    // Assess
    expect(capped[0]).toMatch(/^\[\d+ earlier lines dropped\]$/);
    expect(capped.at(-1)).toBe(lines.at(-1));
    expect(capped.join('').length).toBeLessThanOrEqual(200_100);
    expect(capLogs(['short'])).toEqual(['short']);
  });
});
