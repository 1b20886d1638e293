import type { AppConfig } from '@kw/platform-config';
import type { ComponentDefinition } from './component.js';

/**
 * Chooses which of a binary's components this process starts: TARGETS from the environment,
 * else the binary's default. `all` means every component the binary knows.
 */
export function resolveTargets(
  config: AppConfig,
  known: ComponentDefinition[],
  defaults: string[] | ((config: AppConfig) => string[]),
): ComponentDefinition[] {
  const wanted = config.TARGETS ?? (typeof defaults === 'function' ? defaults(config) : defaults);
  if (wanted.includes('all')) return known;
  const chosen = known.filter((c) => wanted.includes(c.name));
  const unknown = wanted.filter((name) => !known.some((c) => c.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `TARGETS names components this binary does not have: ${unknown.join(', ')} (known: ${known.map((c) => c.name).join(', ')})`,
    );
  }
  return chosen;
}
