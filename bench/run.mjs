#!/usr/bin/env node
// The benchmark suite: each scenario measures the platform and a baseline doing the same
// work, in the same run, on this machine, and reports the ratio (absolute numbers on a shared
// 2-core machine are noise; ratios are not). Benchmarks never fail on figures: no thresholds.
// The run exits 1 when a scenario crashed, after cleaning up every process, temp folder,
// scratch database and JetStream stream it made (also on SIGINT/SIGTERM).
//
//   npm run bench                  every scenario, default sizes (under 10 minutes here)
//   npm run bench -- --quick       short run that proves the suite works (CI, under 2 minutes)
//   npm run bench -- --only=1,3    a subset of scenarios (by number)
// Scenarios 2-4 need NATS_URL and DATABASE_URL, 5 needs DATABASE_URL: without them they are
// skipped, and the report says so. 1, 6, 8, 9, 10 and 11 run on the embedded default (its own
// PostgreSQL server).
// Scenarios: bench/scenarios/*.mjs; see bench/README.md.
import os from 'node:os';
import { CONNECTIONS, DURATION, cleanupAll, logTail, quick, root } from './lib.mjs';
import { DEFAULT_APPS, startDistributed, startEmbedded } from './platforms.mjs';
import { printReport, writeReport } from './report.mjs';
import { chatScenario, embedChatScenario, startModelStandIn } from './scenarios/chat.mjs';
import { fileSearchScenario } from './scenarios/file-search.mjs';
import { leafScenario } from './scenarios/leaf.mjs';
import { filesScenario } from './scenarios/files.mjs';
import { fragmentCreate } from './scenarios/fragment-create.mjs';
import { fragmentGet } from './scenarios/fragment-get.mjs';
import { agentAuthScenario, agentIssuer } from './scenarios/agent-auth.mjs';
import { gatewayRoute } from './scenarios/gateway-route.mjs';
import { mcpVsRest } from './scenarios/mcp.mjs';
import { memoryCollector } from './scenarios/memory.mjs';
import { mixedLoadRows, runMixedLoad, seedMixedLoad } from './scenarios/mixed-load.mjs';
import { natsHop } from './scenarios/nats-hop.mjs';
import { portableWorkspaces } from './scenarios/portable-workspaces.mjs';
import { WEBHOOK_ENV, webhookDeliveries } from './scenarios/webhooks.mjs';
import { searchPlan, searchScenario } from './scenarios/search.mjs';

const startedAt = performance.now();
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
/** --only=5 selects 5a, 5b, ... too. */
const wanted = (id) => !only || only.includes(id.replace(/[a-z]$/, ''));
const { DATABASE_URL, NATS_URL } = process.env;
const results = [];
const memory = memoryCollector();
let crashed = false;

/**
 * Runs one scenario; a throw is recorded as a crash (the run goes on, and exits 1 at the end),
 * with the warnings and errors the platform logged meanwhile.
 */
async function scenario(id, title, fn, platform) {
  if (!wanted(id)) return;
  console.error(`bench: ${id}. ${title}`);
  const started = performance.now();
  try {
    const rows = [await fn()].flat();
    const seconds = +((performance.now() - started) / 1000).toFixed(1);
    rows.forEach((r, i) =>
      results.push({
        id: rows.length > 1 ? `${id}${'abcdefghijklmnopqrstuvwxyz'[i]}` : id,
        status: 'ok',
        ...r,
        ratio: +r.ratio.toFixed(3),
        seconds,
      }),
    );
  } catch (err) {
    crash(id, title, err);
    if (platform)
      console.error(
        `bench: the platform's last warnings and errors:\n${logTail(platform.child, 400)
          .split('\n')
          .filter((l) => /"level":"(warn|error|fatal)"|Error/.test(l))
          .slice(-15)
          .join('\n')}`,
      );
  }
}

function crash(id, title, err) {
  crashed = true;
  results.push({ id, scenario: title, status: 'crashed', error: String(err?.stack ?? err) });
  console.error(`bench: ${id}. ${title}: CRASHED\n${err?.stack ?? err}`);
}

function skip(ids, reason) {
  for (const [id, title] of ids) if (wanted(id)) results.push({ id, scenario: title, status: 'skipped', reason });
  const skipped = ids.map(([id]) => id).filter(wanted);
  if (skipped.length > 0) console.error(`bench: skipping ${skipped.join(', ')}: ${reason}`);
}

/** Starts a platform for some scenarios and stops it after them; a failed start crashes them all. */
async function withPlatform(ids, start, body) {
  if (!ids.some(([id]) => wanted(id))) return;
  let platform;
  let t = performance.now();
  const since = () => `${((performance.now() - t) / 1000).toFixed(1)} s`;
  try {
    platform = await start();
  } catch (err) {
    for (const [id, title] of ids)
      if (wanted(id)) crash(id, title, new Error(`the platform did not start: ${err.message}`));
    return;
  }
  console.error(`bench: ${platform.mode} platform ready in ${since()}`);
  try {
    await body(platform);
  } finally {
    t = performance.now();
    await platform.stop();
    console.error(`bench: ${platform.mode} platform stopped in ${since()}`);
  }
}

let finishing;
/** Cleans up once (normal end, signal or stray rejection), then writes the report. */
function finish(code) {
  finishing ??= (async () => {
    await cleanupAll();
    const run = {
      at: new Date().toISOString(),
      quick,
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}, load ${os.loadavg()[0].toFixed(1)} at the end (shared machine)`,
      wallSeconds: +((performance.now() - startedAt) / 1000).toFixed(1),
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      results: results.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true })),
      memory: memory.rows,
    };
    printReport(run);
    writeReport(root, run);
    process.exit(code);
  })();
  return finishing;
}

process.on('SIGINT', () => {
  console.error('bench: interrupted; cleaning up');
  crash('-', 'interrupted (SIGINT)', 'SIGINT');
  void finish(130);
});
process.on('SIGTERM', () => {
  crash('-', 'terminated (SIGTERM)', 'SIGTERM');
  void finish(143);
});
process.on('unhandledRejection', (err) => {
  crash('-', 'unhandled rejection', err);
  void finish(1);
});

let standIn;
/** Scenario 12's identity provider (keys made here, trusted by the embedded platform). */
let issuer;
/** Scenario 11's distributed measurement, when the distributed platform ran. */
let mixedDistributed;
try {
  await withPlatform(
    [
      ['1', 'gateway route'],
      ['6', 'MCP vs REST search'],
      ['8', 'files: uploads and extraction'],
      ['9', 'chat: latency added'],
      ['10', 'embed chat: latency added'],
      ['12', 'agent authentication'],
      ['13', 'portable workspaces'],
      ['14', 'webhook deliveries'],
    ],
    async () => {
      standIn = await startModelStandIn();
      issuer = await agentIssuer();
      return startEmbedded({ env: { ...standIn.env, ...issuer.env, ...WEBHOOK_ENV } });
    },
    async (embedded) => {
      await scenario('1', 'gateway route vs bare Fastify', () => gatewayRoute({ embedded }), embedded);
      await scenario('6', 'MCP tools/call search vs REST search', () => mcpVsRest({ embedded }), embedded);
      await scenario('8', 'files: upload MiB/s and extraction files/s', () => filesScenario({ embedded }), embedded);
      await scenario(
        '9',
        'chat: latency added to a completion and to the first token',
        () => chatScenario({ embedded, standIn }),
        embedded,
      );
      await scenario(
        '10',
        'embed chat: latency added to the first token of a turn',
        () => embedChatScenario({ embedded, standIn }),
        embedded,
      );
      await scenario(
        '12',
        'agent authentication: an agent token on a route, and ID-JAG exchanges',
        () => agentAuthScenario({ embedded, issuer }),
        embedded,
      );
      await scenario(
        '13',
        'portable workspaces: export and import jobs',
        () => portableWorkspaces({ embedded }),
        embedded,
      );
      await scenario(
        '14',
        'webhook deliveries: bulk creates until every delivery arrived',
        () => webhookDeliveries({ embedded }),
        embedded,
      );
      memory.platform(embedded, 'embedded default');
    },
  );

  const distributedIds = [
    ['2', 'NATS hop'],
    ['3', 'GET fragment'],
    ['4', 'fragment creates and enrichment drain'],
    ['11', 'concurrent clients (the distributed half)'],
  ];
  if (DATABASE_URL && NATS_URL) {
    const apps = process.env.BENCH_APPS ? process.env.BENCH_APPS.split(',') : DEFAULT_APPS;
    await withPlatform(
      distributedIds,
      () => startDistributed({ apps }),
      async (distributed) => {
        await scenario(
          '2',
          'gateway -> NATS -> service vs bare request-reply',
          () => natsHop({ distributed }),
          distributed,
        );
        await scenario(
          '3',
          'GET /api/memory-fragments/{id} vs bare Fastify + pg',
          () => fragmentGet({ distributed, memory }),
          distributed,
        );
        await scenario(
          '4',
          'fragment creates and enrichment drain',
          () => fragmentCreate({ distributed }),
          distributed,
        );
        if (wanted('11')) {
          // The distributed half of scenario 11, the baseline of its embedded half below.
          console.error('bench: 11. (distributed half) concurrent clients, mixed requests');
          try {
            mixedDistributed = await runMixedLoad(distributed, await seedMixedLoad(distributed));
            distributed.assertAlive();
          } catch (err) {
            console.error(`bench: 11. the distributed half failed; the embedded half runs alone\n${err?.stack ?? err}`);
          }
        }
        memory.platform(distributed, 'distributed');
      },
    );
  } else {
    skip(distributedIds, 'set NATS_URL and DATABASE_URL');
  }

  // 11 on a fresh embedded default, after the distributed half.
  await withPlatform(
    [['11', 'concurrent clients: embedded default vs distributed']],
    () => startEmbedded({ name: 'embedded-mixed' }),
    async (embedded) =>
      scenario(
        '11',
        'concurrent clients, mixed requests: embedded default vs distributed',
        async () => mixedLoadRows(await runMixedLoad(embedded, await seedMixedLoad(embedded)), mixedDistributed),
        embedded,
      ),
  );

  if (DATABASE_URL) {
    // One row per size and query shape (1-2 keywords, 10-30-word questions): 5a, 5b, ...
    const sizes = searchPlan();
    await scenario('5', `search at ${sizes.map((s) => `${s.size / 1000}k`).join(' and ')} fragments`, async () => {
      const rows = [];
      for (const size of sizes) rows.push(...(await searchScenario(size, { memory })));
      return rows;
    });
    await scenario('15', 'files search at scale', fileSearchScenario);
    await scenario('16', 'a Leaf read vs the Cloud read', () => leafScenario({ memory }));
  } else {
    skip(
      [
        ['5', 'search'],
        ['15', 'files search'],
        ['16', 'a Leaf'],
      ],
      'set DATABASE_URL',
    );
  }
} catch (err) {
  crash('-', 'orchestrator', err);
}
await finish(crashed ? 1 : 0);
