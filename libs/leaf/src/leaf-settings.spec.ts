import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@kw/platform-config';
import { leafSettingsFrom } from './leaf-settings.js';

const settings = (env: Record<string, string>) => leafSettingsFrom(loadConfig({}, env));

describe('leafSettingsFrom', () => {
  it('takes an https PUBLIC_URL as the endpoint it registers', () => {
    const s = settings({ CLOUD_URL: 'https://kw.example.com/', PUBLIC_URL: 'https://leaf.example.com' });
    expect(s).toMatchObject({ cloudUrl: 'https://kw.example.com', endpointUrl: 'https://leaf.example.com' });
  });

  it('refuses a plain-http PUBLIC_URL, and the http://localhost default, naming the fix', () => {
    const envs: Array<Record<string, string>> = [{ PUBLIC_URL: 'http://leaf.example.com' }, {}];
    for (const env of envs) {
      let err: unknown;
      try {
        settings({ CLOUD_URL: 'https://kw.example.com', ...env });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        expect.stringMatching(/^PUBLIC_URL: a Leaf must be reached over https.*HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS=true/),
      ]);
    }
  });

  it('allows http with the development setting', () => {
    const s = settings({
      CLOUD_URL: 'http://127.0.0.1:3000',
      PUBLIC_URL: 'http://127.0.0.1:3001',
      HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS: 'true',
    });
    expect(s.endpointUrl).toBe('http://127.0.0.1:3001');
  });

  it('names every problem at once', () => {
    expect(() => settings({})).toThrow(
      /CLOUD_URL: required by the Leaf[\s\S]*PUBLIC_URL: a Leaf must be reached over https/,
    );
  });
});
