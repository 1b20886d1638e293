import { describe, expect, it } from 'vitest';
import { likePattern } from '../persistence/workspaces.repository.js';
import { applySettingsPatch, DEFAULT_SETTINGS, readSettings } from './workspace-settings.js';

describe('workspace settings', () => {
  it('reads missing or malformed stored values as the defaults', () => {
    expect(readSettings({})).toEqual(DEFAULT_SETTINGS);
    expect(readSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(readSettings({ enrichment: 'x', allowPublicSubscriptions: 'no', defaultFragmentTypeId: 5 })).toEqual(
      DEFAULT_SETTINGS,
    );
  });

  it('applies a partial patch; null clears the fragment type', () => {
    const set = applySettingsPatch(DEFAULT_SETTINGS, { defaultFragmentTypeId: 'a', enrichmentTags: false });
    expect(set).toEqual({
      defaultFragmentTypeId: 'a',
      enrichment: { summaries: true, tags: false },
      allowPublicSubscriptions: true,
    });
    expect(applySettingsPatch(set, { defaultFragmentTypeId: null }).defaultFragmentTypeId).toBeNull();
    expect(applySettingsPatch(set, {})).toEqual(set);
  });
});

describe('likePattern', () => {
  it('escapes LIKE wildcards and the escape character', () => {
    expect(likePattern('100%')).toBe('%100\\%%');
    expect(likePattern('a_b')).toBe('%a\\_b%');
    expect(likePattern('c:\\x')).toBe('%c:\\\\x%');
  });
});
