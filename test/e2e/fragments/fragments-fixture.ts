import { rmSync } from 'node:fs';
import { adminEnv, userWithToken } from '../../support/accounts.js';
import { startEmbedded, tempDir, type PlatformProcess } from '../../support/processes.js';
import { workspacesApi } from '../workspaces/workspaces-api.js';

export interface Person {
  id: string;
  email: string;
  auth: string;
}

/** Rate limits out of the way: these suites send thousands of requests from one address. */
const UNLIMITED = {
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_WORKSPACE: '1000000',
  RATE_LIMIT_PER_ADDRESS: '1000000',
};

/** One embedded platform per suite, with a JSON client and a way to make accounts. */
export async function startFragmentsPlatform(env: Record<string, string> = {}) {
  const dataDir = tempDir('kw-fragments-');
  const admin = adminEnv();
  const platform: PlatformProcess = await startEmbedded(dataDir, { ...admin, ...UNLIMITED, ...env });
  const api = workspacesApi(platform.url);
  const person = async (): Promise<Person> => {
    const { user, token } = await userWithToken(platform.url, admin.ADMIN_TOKEN);
    return { id: user.id, email: user.email, auth: token };
  };
  /** A workspace of `owner` and the id of its default "note" type. */
  const workspace = async (owner: Person, fields: Record<string, unknown> = {}) => {
    const ws = await api.createWorkspace(owner.auth, fields);
    const types = await api.ok(owner.auth, 'GET', `/api/workspaces/${ws.id}/fragment-types`, undefined, 200);
    const note = types.items.find((t: any) => t.key === 'note');
    return { id: ws.id as string, noteTypeId: note.id as string, types: types.items as any[] };
  };
  const stop = async () => {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { platform, api, person, workspace, stop, dataDir };
}
