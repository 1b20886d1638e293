// The collection as files (run.mjs --modes=…,files): each document uploaded as a text file
// (`<doc id>.txt`, its title on the first line, then its text) through POST /api/files/upload,
// twenty to an upload (the route's limit), then waited for until processing made every one
// `ready` (text extracted, chunked, embedded). GET /api/files/search is then measured like the
// fragment modes, its files mapped back to their documents.
import { waitFor } from '../lib.mjs';

const FILES_PER_UPLOAD = 20;

/** Uploads the documents; answers file id -> document id. */
export async function uploadCorpus(api, workspaceId, docs, { concurrency, log }) {
  const batches = [];
  for (let i = 0; i < docs.length; i += FILES_PER_UPLOAD) batches.push(docs.slice(i, i + FILES_PER_UPLOAD));
  const docOf = new Map();
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        const form = new FormData();
        form.append('workspaceId', workspaceId); // before the files: the route reads parts in order
        for (const doc of batch) {
          const text = `${doc.title.trim()}\n\n${doc.text.trim()}`.trim() || doc.id;
          form.append('file', new Blob([text], { type: 'text/plain' }), `${doc.id}.txt`);
        }
        const res = await fetch(`${api.base}/api/files/upload`, { method: 'POST', headers: api.auth, body: form });
        const body = await res.json();
        if (!res.ok) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
        body.files.forEach((file, i) => docOf.set(file.id, batch[i].id));
        if (++done % 25 === 0) log(`${done * FILES_PER_UPLOAD} of ${docs.length} files uploaded`);
      }
    }),
  );
  return docOf;
}

/** Waits until every uploaded file is processed; a file that failed is an error. */
export async function waitProcessed(api, fileIds, { timeoutMs, log }) {
  const pending = [...fileIds];
  let failure;
  await waitFor(
    `processing of ${fileIds.length} files`,
    async () => {
      while (pending.length > 0) {
        const { status, failureMessage } = await api.request('GET', `/api/files/${pending[0]}/status`);
        if (status === 'failed') failure = new Error(`file ${pending[0]} failed: ${failureMessage}`);
        if (status !== 'ready') return false;
        pending.shift();
        if (pending.length % 500 === 0) log(`${fileIds.length - pending.length} of ${fileIds.length} files ready`);
      }
      return true;
    },
    {
      timeoutMs,
      intervalMs: 500,
      failIf: () => {
        if (failure) throw failure;
      },
    },
  );
}
