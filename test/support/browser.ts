import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_PATH } from './services.js';

/**
 * Debian's Chromium, headless, driven by playwright-core (never a browser a test tool
 * downloads), with what this machine's closed network needs: no background networking,
 * component updates or sync, which would try to reach Google's hosts at every start.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
