// 16. A hosted zone's data plane: a fragment read on a Leaf with the Cloud's handoff token
// against the same read on the Cloud with a personal access token. The Cloud is an embedded
// platform and the Leaf its own process, each on a scratch database of the same PostgreSQL
// server; the Leaf is enrolled in a zone of the bench account and the workspace placed there
// (docs/hosted-zones.md). What differs per request: the Leaf verifies the handoff token (a JWT
// signed by the Cloud, its keys fetched once) where the Cloud looks its token up.
import { notes } from '../corpus.mjs';
import { startEmbedded } from '../platforms.mjs';
import { UNLIMITED, freePort, load, scratchDatabase, scratchDir, spawnNode, stop, waitFor } from '../lib.mjs';

/** Ours (no issue sets one): a Leaf serves its reads about as fast as the Cloud serves its own. */
export const LEAF_TARGET = 0.8;
/** Both planes listen on plain http on this machine (docs/hosted-zones-leaf.md). */
const HTTP_ENDPOINTS = { HOSTED_ZONE_ALLOW_HTTP_ENDPOINTS: 'true' };

export async function leafScenario({ memory }) {
  const cloud = await startEmbedded({
    name: 'cloud-of-leaf',
    env: { DATABASE_URL: await scratchDatabase('leafcloud'), ...HTTP_ENDPOINTS },
  });
  let leaf;
  try {
    const { api } = cloud;
    const { hostedZone, enrollmentToken } = await api.request('POST', '/api/hosted-zones', {
      name: 'Bench zone',
      region: 'local',
    });
    const port = await freePort();
    const leafUrl = `http://127.0.0.1:${port}`;
    leaf = spawnNode('dist/apps/leaf/src/main.js', [], {
      name: 'leaf',
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: leafUrl,
        DATABASE_URL: await scratchDatabase('leaf'),
        DATA_DIR: scratchDir('leaf'),
        CLOUD_URL: api.base,
        ENROLLMENT_TOKEN: enrollmentToken,
        SECRETS_ENCRYPTION_KEY: 'c'.repeat(64),
        LEAF_HEARTBEAT_SECONDS: '1',
        LOG_LEVEL: 'warn',
        ...UNLIMITED,
        ...HTTP_ENDPOINTS,
      },
    });
    await waitFor(
      'the zone online',
      async () => (await api.request('GET', `/api/hosted-zones/${hostedZone.id}`)).hostedZone.status === 'online',
      { child: leaf },
    );
    const { workspace } = await api.request('POST', '/api/workspaces', {
      name: 'bench on the Leaf',
      hostedZoneId: hostedZone.id,
    });
    await waitFor(
      'the Leaf workspace active',
      async () => (await api.request('GET', `/api/workspaces/${workspace.id}`)).workspace.status === 'active',
      { child: leaf },
    );
    const handoff = await api.request('POST', `/api/workspaces/${workspace.id}/handoff`);
    const atLeaf = { authorization: `Bearer ${handoff.token}` };
    const note = notes({ seed: 16 }).next();
    const types = await (
      await fetch(`${leafUrl}/api/workspaces/${workspace.id}/fragment-types`, { headers: atLeaf })
    ).json();
    const created = await fetch(`${leafUrl}/api/memory-fragments`, {
      method: 'POST',
      headers: { ...atLeaf, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspaceId: workspace.id,
        fragmentTypeId: types.items.find((t) => t.key === 'note').id,
        title: note.title,
        content: note.content,
      }),
    });
    if (created.status !== 201)
      throw new Error(`a create on the Leaf answered ${created.status}: ${await created.text()}`);
    const onLeaf = (await created.json()).fragment;
    const leafFragment = `${leafUrl}/api/memory-fragments/${onLeaf.id}`;
    // Measured once enrichment is done on both planes: no background writes to the rows.
    await waitFor(
      'enrichment on the Leaf',
      async () => (await (await fetch(leafFragment, { headers: atLeaf })).json()).fragment?.status === 'published',
      { child: leaf },
    );
    const { workspaceId, typeId } = await api.workspace('bench in the Cloud');
    const inCloud = await api.createFragment(workspaceId, typeId, note);
    await api.waitEnriched(workspaceId);

    const platform = await load(leafFragment, { headers: atLeaf });
    const baseline = await load(`${api.base}/api/memory-fragments/${inCloud.id}`, { headers: api.auth });
    memory.sample('a Leaf, after its reads', leaf.pid);
    return {
      scenario: 'GET /api/memory-fragments/{id} on a Leaf (handoff token) vs on the Cloud (PAT)',
      unit: 'req/s',
      platform,
      baseline,
      ratio: platform.rps / baseline.rps,
      target: LEAF_TARGET,
      note: `the Leaf and an embedded Cloud, each on its own database of one PostgreSQL server; one ${note.content.length}-character fragment on each; handoff token valid ${handoff.expiresIn ?? '?'} s`,
    };
  } finally {
    if (leaf) await stop(leaf);
    await cloud.stop();
  }
}
