// One semver module for scripts and templates: SemVer 2.0 with pre-releases and build metadata.
import { describe, expect, it } from 'vitest';
import { Semver, compareSemver, isSemver, nextPatch } from '../../functions/platform/semver.js';

describe('semver', () => {
  it.each(['1.0.0', '0.0.1', '1.0.0-beta.1', '1.0.0-alpha.3', '1.0.0-rc.1+build.5', '2.3.4+20261123', '10.20.30-x.7.z.92'])('accepts %s', (version) => {
    // Act / Assess
    expect(isSemver(version)).toBe(true);
    expect(Semver.safeParse(version).success).toBe(true);
  });

  it.each(['1.0', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0-beta..1', '1.0.0-01', '1.0.0+', ' 1.0.0', '1.0.0 ', `1.0.0-${'a'.repeat(300)}`])(
    'refuses %j',
    (version) => {
      // Act / Assess
      expect(isSemver(version)).toBe(false);
      expect(Semver.safeParse(version).success).toBe(false);
    },
  );

  it('orders by precedence: pre-releases before their release, numeric identifiers numerically, build metadata ignored', () => {
    // Prepare
    const shuffled = [
      '1.0.0',
      '1.0.0-beta.11',
      '1.0.0-alpha',
      '1.0.0-rc.1',
      '1.0.0-beta.2',
      '1.0.0-alpha.1',
      '0.9.9',
      '1.0.0-beta',
      '1.0.0-alpha.beta',
      '1.10.0',
      '1.9.0',
    ];
    // Act
    const sorted = [...shuffled].sort(compareSemver);
    // Assess
    expect(sorted).toEqual([
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.9.0',
      '1.10.0',
    ]);
    expect(compareSemver('1.0.0+a', '1.0.0+b')).toBe(0);
  });

  it('takes the next patch, a pre-release moving to its release', () => {
    // Act / Assess
    expect(nextPatch('1.2.3')).toBe('1.2.4');
    expect(nextPatch('1.3.0-beta.1')).toBe('1.3.0');
  });
});
