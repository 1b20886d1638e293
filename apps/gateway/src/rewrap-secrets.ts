import { chatComponent, EmbedKeyTokensRewrap, VaultRewrap } from '@kw/chat';
import { runPlatform } from '@kw/platform-runtime';
import type { ResealTally } from '@kw/platform-secret-box';
import { webhooksComponent, WebhookValuesRewrap } from '@kw/webhooks';
import { HandoffKeysRewrap, workspacesComponent } from '@kw/workspaces';

// `npm run vault:rewrap` (docs/chat.md#rotating-the-master-key): moves everything sealed with the
// master key to the current SECRETS_ENCRYPTION_KEY, each component through its own repository:
// vault secrets' data keys (chat), embed keys' scoped tokens (chat), webhook header values and
// signing secrets (webhooks), hosted zones' handoff signing keys (workspaces). Runs the three
// components on a free metrics port (TARGETS is not read: all three are needed), does the work
// with progress on stderr, prints one JSON line and exits: 0 when nothing is left under another
// key, 1 when some value opens with no configured key (counted as `unreadable`) or a step failed.
const env: NodeJS.ProcessEnv = { ...process.env, METRICS_PORT: process.env.METRICS_PORT ?? '0' };
delete env.TARGETS;
const platform = await runPlatform({
  binary: 'vault-rewrap',
  components: [chatComponent, webhooksComponent, workspacesComponent],
  defaultTargets: ['chat', 'webhooks', 'workspaces'],
  env,
});
const progress = (what: string, t: ResealTally) =>
  process.stderr.write(
    `vault-rewrap: ${what}: ${t.resealed} re-sealed, ${t.skipped} changed meanwhile, ${t.unreadable} unreadable\n`,
  );
const report: Record<string, unknown> = {};
const failures: string[] = [];
const step = async (name: string, work: () => Promise<unknown>) => {
  try {
    const done = await work();
    if (name === 'vault') report.vault = done;
    else Object.assign(report, done);
  } catch (err) {
    failures.push(`${name}: ${(err as Error).message}`);
  }
};
try {
  await step('vault', async () => {
    const done = await platform.app.get(VaultRewrap).run((p) => {
      process.stderr.write(`vault-rewrap: vault: ${p.rewrapped} re-wrapped, ${p.skipped} changed meanwhile\n`);
    });
    return { rewrapped: done.rewrapped, skipped: done.skipped };
  });
  await step('embed keys', () => platform.app.get(EmbedKeyTokensRewrap).run(progress));
  await step('webhooks', () => platform.app.get(WebhookValuesRewrap).run(progress));
  await step('handoff keys', () => platform.app.get(HandoffKeysRewrap).run(progress));
} finally {
  await platform.close();
}
const unreadable = Object.values(report).reduce<number>(
  (sum, t) => sum + ((t as Partial<ResealTally>).unreadable ?? 0),
  0,
);
if (unreadable > 0)
  failures.push(
    `${unreadable} value(s) open with no configured key: set the key they were sealed with as SECRETS_ENCRYPTION_KEY_PREVIOUS and run again`,
  );
process.stdout.write(`${JSON.stringify(report)}\n`);
for (const failure of failures) process.stderr.write(`vault-rewrap: ${failure}\n`);
process.exit(failures.length > 0 ? 1 : 0);
