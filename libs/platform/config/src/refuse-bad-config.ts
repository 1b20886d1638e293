import { ConfigError, loadConfig } from './app-config.js';

/**
 * What a binary's entry runs before it loads its components (about a second and a half of
 * module loading): an environment that loadConfig refuses stops the process at once, exit 2,
 * with the message runPlatform would give. Anything else is left to runPlatform, which reads
 * the configuration again and checks what only the components know.
 */
export function refuseBadConfig(binary: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) return;
    process.stderr.write(`${binary}: ${err.message}\n`);
    process.exit(2);
  }
}
