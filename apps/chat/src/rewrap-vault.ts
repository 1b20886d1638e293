import { chatComponent, VaultRewrap } from '@kw/chat';
import { runPlatform } from '@kw/platform-runtime';

// `npm run vault:rewrap`: re-wraps every vault secret's data key under the current master key
// (docs/chat.md#rotating-the-master-key). Runs the chat component on a free port, does the work
// with progress on stderr, and exits.
const platform = await runPlatform({
  binary: 'vault-rewrap',
  components: [chatComponent],
  defaultTargets: ['chat'],
});
try {
  const done = await platform.app.get(VaultRewrap).run((p) => {
    process.stderr.write(`vault-rewrap: ${p.rewrapped} re-wrapped, ${p.skipped} changed meanwhile\n`);
  });
  process.stdout.write(`${JSON.stringify({ rewrapped: done.rewrapped, skipped: done.skipped })}\n`);
} finally {
  await platform.close();
}
