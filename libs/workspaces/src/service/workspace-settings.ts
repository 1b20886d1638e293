import type { MessageInitShape } from '@bufbuild/protobuf';
import type { WorkspaceSettingsSchema } from '@kw/contracts';

/** The settings object of a workspace (stored in workspaces.settings, documented in docs/workspaces.md). */
export interface SettingsValue {
  defaultFragmentTypeId: string | null;
  enrichment: { summaries: boolean; tags: boolean };
  allowPublicSubscriptions: boolean;
}

export const DEFAULT_SETTINGS: Readonly<SettingsValue> = Object.freeze({
  defaultFragmentTypeId: null,
  enrichment: Object.freeze({ summaries: true, tags: true }),
  allowPublicSubscriptions: true,
});

export interface SettingsPatch {
  defaultFragmentTypeId?: string | null;
  enrichmentSummaries?: boolean;
  enrichmentTags?: boolean;
  allowPublicSubscriptions?: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const bool = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);

/** Reads stored settings defensively: missing or malformed keys take their defaults. */
export function readSettings(stored: unknown): SettingsValue {
  const s = isRecord(stored) ? stored : {};
  const enrichment = isRecord(s.enrichment) ? s.enrichment : {};
  return {
    defaultFragmentTypeId: typeof s.defaultFragmentTypeId === 'string' ? s.defaultFragmentTypeId : null,
    enrichment: {
      summaries: bool(enrichment.summaries, DEFAULT_SETTINGS.enrichment.summaries),
      tags: bool(enrichment.tags, DEFAULT_SETTINGS.enrichment.tags),
    },
    allowPublicSubscriptions: bool(s.allowPublicSubscriptions, DEFAULT_SETTINGS.allowPublicSubscriptions),
  };
}

export function applySettingsPatch(current: SettingsValue, patch: SettingsPatch): SettingsValue {
  return {
    defaultFragmentTypeId:
      patch.defaultFragmentTypeId !== undefined ? patch.defaultFragmentTypeId : current.defaultFragmentTypeId,
    enrichment: {
      summaries: patch.enrichmentSummaries ?? current.enrichment.summaries,
      tags: patch.enrichmentTags ?? current.enrichment.tags,
    },
    allowPublicSubscriptions: patch.allowPublicSubscriptions ?? current.allowPublicSubscriptions,
  };
}

export function settingsMessage(value: SettingsValue): MessageInitShape<typeof WorkspaceSettingsSchema> {
  return {
    defaultFragmentTypeId: value.defaultFragmentTypeId ?? '',
    enrichment: value.enrichment,
    allowPublicSubscriptions: value.allowPublicSubscriptions,
  };
}
