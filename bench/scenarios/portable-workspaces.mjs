// 13. Portable workspaces: a workspace exported to one archive and imported into a fresh one by
// the platform's background jobs, each against what a client could do instead through the same
// API in the same run: page through the fragments (export) and write them with the bulk route
// (import). Then (c, d) a client syncing the same notes again by key, against writing them new.
// Enrichment is waited for between the phases, so it never runs during a measurement.
import { quick, throughputRow, waitFor } from '../lib.mjs';
import { notes } from '../corpus.mjs';

export const TARGET = 0.5;
const FRAGMENTS = quick ? 500 : 2000;
const BULK = 500;
const PAGE = 500;

export async function portableWorkspaces({ embedded }) {
  const { api } = embedded;
  const gen = notes({ seed: 13 });
  const items = Array.from({ length: FRAGMENTS }, (_, i) => ({ ...gen.next(), key: `bench-${i}` }));
  // `expect` names the outcome every item must have (created, or with upsert: unchanged or updated).
  const bulkInto = async (workspaceId, typeId, { upsert = false, expect = 'created', suffix = '' } = {}) => {
    for (let i = 0; i < items.length; i += BULK) {
      const answer = await api.request('POST', '/api/memory-fragments/bulk', {
        workspaceId,
        upsert,
        items: items
          .slice(i, i + BULK)
          .map((n) => ({ fragmentTypeId: typeId, key: n.key, title: n.title + suffix, content: n.content })),
      });
      if (answer[expect] !== Math.min(BULK, items.length - i)) throw new Error(`bulk ${expect} ${answer[expect]}`);
    }
  };
  const timedSeconds = async (work) => {
    const started = performance.now();
    await work();
    return (performance.now() - started) / 1000;
  };

  // Import baseline: the same fragments through the bulk route, into a workspace of their own.
  const source = await api.workspace('bench portable source');
  const bulkSeconds = await timedSeconds(() => bulkInto(source.workspaceId, source.typeId));
  await api.waitEnriched(source.workspaceId, 600_000);

  // A client syncing the same notes again by key (upsert): first all unchanged, then all with a
  // new title (updates, which queue enrichment again: waited for before the export).
  const unchangedSeconds = await timedSeconds(() =>
    bulkInto(source.workspaceId, source.typeId, { upsert: true, expect: 'unchanged' }),
  );
  const updatedSeconds = await timedSeconds(() =>
    bulkInto(source.workspaceId, source.typeId, { upsert: true, expect: 'updated', suffix: ' (v2)' }),
  );
  await api.waitEnriched(source.workspaceId, 600_000);

  // Export baseline: every fragment paged through the listing route.
  const pageStarted = performance.now();
  let read = 0;
  for (let offset = 0; ; offset += PAGE) {
    const page = await api.request(
      'GET',
      `/api/memory-fragments?workspaceId=${source.workspaceId}&limit=${PAGE}&offset=${offset}`,
    );
    read += page.items.length;
    if (page.items.length < PAGE) break;
  }
  if (read !== FRAGMENTS) throw new Error(`paged ${read} of ${FRAGMENTS} fragments`);
  const pageSeconds = (performance.now() - pageStarted) / 1000;

  // The export job, until its archive is downloaded.
  const exportStarted = performance.now();
  const base = `/api/workspaces/${source.workspaceId}/exports`;
  const { transfer } = await api.request('POST', base);
  await finished(api, `${base}/${transfer.id}`);
  const res = await fetch(`${api.base}${base}/${transfer.id}/download`, { headers: api.auth });
  if (!res.ok) throw new Error(`download answered ${res.status}`);
  const archive = Buffer.from(await res.arrayBuffer());
  const exportSeconds = (performance.now() - exportStarted) / 1000;

  // The import job into a fresh workspace, until it is done.
  const target = await api.workspace('bench portable target');
  const importStarted = performance.now();
  const started = await fetch(`${api.base}/api/workspaces/${target.workspaceId}/imports`, {
    method: 'POST',
    headers: { ...api.auth, 'content-type': 'application/zip' },
    body: archive,
  });
  if (started.status !== 202) throw new Error(`import answered ${started.status}: ${await started.text()}`);
  const job = (await started.json()).transfer;
  const done = await finished(api, `/api/workspaces/${target.workspaceId}/imports/${job.id}`);
  const importSeconds = (performance.now() - importStarted) / 1000;
  if (done.result.fragments.created !== FRAGMENTS) throw new Error(`imported ${JSON.stringify(done.result)}`);
  await api.waitEnriched(target.workspaceId, 600_000);

  const note = `embedded mode, ${FRAGMENTS} generated notes (archive ${(archive.length / 1024).toFixed(0)} KiB)`;
  const row = (scenario, platformSeconds, baselineSeconds, target, rowNote = note) =>
    throughputRow({
      scenario,
      unit: 'fragments/s',
      count: FRAGMENTS,
      platformSeconds,
      baselineSeconds,
      target,
      note: rowNote,
    });
  return [
    row('workspace export (job + download) vs paging through the listing route', exportSeconds, pageSeconds, TARGET),
    row('workspace import (job) vs the bulk route writing the same fragments', importSeconds, bulkSeconds, TARGET),
    row(
      'bulk upsert of the same keyed notes, all unchanged, vs the bulk route creating them',
      unchangedSeconds,
      bulkSeconds,
      1,
      `${note}; ${BULK} items a request, upsert by key (a re-sync that changes nothing)`,
    ),
    row(
      'bulk upsert of the same keyed notes, every title changed, vs the bulk route creating them',
      updatedSeconds,
      bulkSeconds,
      TARGET,
      `${note}; ${BULK} items a request, upsert by key (each an update at its version, enrichment queued again)`,
    ),
  ];
}

async function finished(api, path) {
  let last;
  await waitFor(
    path,
    async () => {
      last = (await api.request('GET', path)).transfer;
      return last.status === 'done' || last.status === 'failed';
    },
    // 20 ms: the 500-note jobs take 100-250 ms, so a coarser poll was most of the figure's spread.
    { timeoutMs: 600_000, intervalMs: 20 },
  );
  if (last.status === 'failed') throw new Error(`${path} failed: ${last.error}`);
  return last;
}
