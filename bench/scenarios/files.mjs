// 8. Files on the embedded platform (its PostgreSQL server, DATA_DIR/files on local disk):
// a) upload throughput: MiB/s of 8 MiB files sent a few at a time through POST /api/files/upload
//    against a bare Fastify route streaming the same multipart bodies into the same storage
//    adapter (LocalDiskStorage, built), with the same parser (@fastify/busboy);
// b) extraction throughput: files/s of a fixed mix (the samples of test/fixtures/files and a
//    generated 100-page PDF), from the first upload until every file's status is `ready`, against
//    extractText (built) called in this process, one file after another, on the same bytes.
// Nothing is asserted on the figures; a file that fails or ends in another kind than expected
// crashes the scenario (it would measure other work).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { percentiles, quick, root, scratchDir, sleep, startBaseline, stop } from '../lib.mjs';

/** No issue sets goals for files; these are this suite's (bench/README.md). */
export const UPLOAD_TARGET = 0.8;
export const EXTRACTION_TARGET = 0.5;

const MiB = 1024 * 1024;
const UPLOAD_BYTES = 8 * MiB;
const UPLOADS = Number(process.env.BENCH_FILE_UPLOADS ?? (quick ? 16 : 48));
const UPLOAD_CONCURRENCY = 4;
/** How many times the extraction mix is uploaded (and extracted by the baseline). */
const ROUNDS = Number(process.env.BENCH_FILE_ROUNDS ?? (quick ? 2 : 6));
const MIX_CONCURRENCY = 4;
const BIG_PDF_PAGES = 100;
const BOUNDARY = `----kw-bench-${randomBytes(12).toString('hex')}`;

/** The fixtures of test/fixtures/files with their MIME type and the kind the platform sniffs. */
const SAMPLES = [
  ['sample.pdf', 'application/pdf', 'pdf'],
  ['sample.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['sample.html', 'text/html', 'html'],
  ['sample.md', 'text/markdown', 'markdown'],
  ['sample.txt', 'text/plain', 'text'],
  ['sample.csv', 'text/csv', 'csv'],
  ['sample.json', 'application/json', 'json'],
];

/** The mix: every sample, and a 100-page PDF with a paragraph of distinct text on each page. */
async function extractionMix() {
  const { makePdf } = await import(path.join(root, 'test/fixtures/files/make-fixtures.mjs'));
  const words = ['storage', 'stream', 'extraction', 'worker', 'thread', 'chunk', 'embedding', 'upload', 'latency'];
  const words2 = ['throughput', 'baseline', 'ratio', 'partial', 'rename', 'sniff', 'quota', 'lease', 'ready'];
  const pages = Array.from(
    { length: BIG_PDF_PAGES },
    (_, p) =>
      `Page ${p + 1}: ` +
      Array.from(
        { length: 50 },
        (_, w) => `${words[(p + w) % words.length]}${words2[(p * 7 + w * 3) % words2.length]}`,
      ).join(' '),
  );
  return [
    ...SAMPLES.map(([name, mime, kind]) => ({
      name,
      mime,
      kind,
      bytes: new Uint8Array(readFileSync(path.join(root, 'test/fixtures/files', name))),
    })),
    { name: 'report.pdf', mime: 'application/pdf', kind: 'pdf', bytes: makePdf(pages) },
  ];
}

let ticksPerSecond;
/**
 * CPU seconds (user + system, every thread: the extraction workers too) a process has used, from
 * /proc/<pid>/stat: on a shared machine, CPU per MiB or per file moves less than wall time.
 */
function cpuSeconds(pid) {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' '); // from field 3: the name may hold ') '
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** A multipart/form-data body: the workspaceId field, then one file part (what the upload route wants). */
function multipart(workspaceId, name, mime, bytes) {
  return new Blob([
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${workspaceId}\r\n`,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${mime}\r\n\r\n`,
    bytes,
    `\r\n--${BOUNDARY}--\r\n`,
  ]);
}

/** POSTs a multipart body; anything but 201 fails the measurement. Answers the parsed body and the time taken. */
async function post(url, headers, body) {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return { ms: performance.now() - started, answer: JSON.parse(text) };
}

/** Runs `fn(i)` for i < count, `concurrency` at a time. */
async function inPool(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** `count` uploads of `body`, `UPLOAD_CONCURRENCY` at a time: MiB/s over the wall time, latency per upload. */
async function uploads(url, headers, body, count, pid, onAnswer = () => {}) {
  const samples = [];
  const cpu = cpuSeconds(pid);
  const started = performance.now();
  await inPool(count, UPLOAD_CONCURRENCY, async () => {
    const { ms, answer } = await post(url, headers, body);
    samples.push(ms);
    onAnswer(answer);
  });
  const seconds = (performance.now() - started) / 1000;
  const { p50, p99 } = percentiles(samples);
  const mib = (count * UPLOAD_BYTES) / MiB;
  return {
    rps: +(mib / seconds).toFixed(1),
    p50,
    p99,
    uploads: count,
    seconds: +seconds.toFixed(2),
    cpuMsPerMiB: +(((cpuSeconds(pid) - cpu) * 1000) / mib).toFixed(2),
  };
}

/**
 * Polls GET /api/files/{id}/status until every file is `ready` (any other end fails); answers
 * when the last one was seen ready. Files are checked in order, stopping at the first one still
 * processing, so the polling itself adds little load.
 */
async function waitReady(api, ids, timeoutMs) {
  const pending = [...ids];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    while (pending.length > 0) {
      const s = await api.request('GET', `/api/files/${pending[0]}/status`);
      if (s.status === 'processing') break;
      if (s.status !== 'ready')
        throw new Error(`file ${pending[0]} ended ${s.status}: ${s.failureReason ?? ''} ${s.failureMessage ?? ''}`);
      pending.shift();
    }
    if (pending.length === 0) return performance.now();
    if (Date.now() > deadline)
      throw new Error(`${pending.length} of ${ids.length} files still processing after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

async function deleteFiles(api, ids) {
  for (let i = 0; i < ids.length; i += 100)
    await api.request('POST', '/api/files/bulk-delete', { ids: ids.slice(i, i + 100) });
}

export async function filesScenario({ embedded }) {
  const { api } = embedded;
  const { workspaceId } = await api.workspace('bench files');
  const uploadUrl = `${api.base}/api/files/upload`;
  const fileIds = [];
  const blobDir = scratchDir('files-baseline');
  let bare;
  try {
    // a) Uploads. Random bytes starting with NULs sniff as `other`: stored, never extracted, so
    // processing does not compete with the uploads.
    const payload = randomBytes(UPLOAD_BYTES);
    payload.fill(0, 0, 16);
    const body = multipart(workspaceId, 'blob.bin', 'application/octet-stream', payload);
    const warm = (await post(uploadUrl, api.auth, body)).answer.file;
    fileIds.push(warm.id);
    if (warm.sizeBytes !== UPLOAD_BYTES || !['other', 'image'].includes(warm.kind))
      throw new Error(`the upload payload was stored as ${warm.kind}, ${warm.sizeBytes} bytes`);
    const platformUpload = await uploads(uploadUrl, api.auth, body, UPLOADS, embedded.child.pid, (a) =>
      fileIds.push(a.file.id),
    );

    // Their processing (kind other: no extraction) ends before the baseline runs.
    await waitReady(api, fileIds, 60_000);

    bare = await startBaseline('bench/baselines/bare-fastify.mjs', ['files-upload', blobDir]);
    const bareWarm = (await post(`${bare.base}/upload`, {}, body)).answer.files[0];
    if (bareWarm.bytes !== UPLOAD_BYTES) throw new Error(`the baseline stored ${bareWarm.bytes} bytes`);
    const baselineUpload = await uploads(`${bare.base}/upload`, {}, body, UPLOADS, bare.child.pid);
    await stop(bare.child);
    bare = undefined;
    rmSync(blobDir, { recursive: true, force: true });
    await deleteFiles(api, fileIds.splice(0));

    // b) Extraction: the mix uploaded ROUNDS times, a few uploads in flight, each file its own request.
    const mix = await extractionMix();
    const bodies = Array.from({ length: ROUNDS }, (_, r) =>
      mix.map((f) => ({ ...f, body: multipart(workspaceId, `r${r}-${f.name}`, f.mime, f.bytes) })),
    ).flat();
    const platformCpu = cpuSeconds(embedded.child.pid);
    const started = performance.now();
    const mixIds = [];
    await inPool(bodies.length, MIX_CONCURRENCY, async (i) => {
      const { file } = (await post(uploadUrl, api.auth, bodies[i].body)).answer;
      if (file.kind !== bodies[i].kind) throw new Error(`${bodies[i].name} was sniffed as ${file.kind}`);
      fileIds.push(file.id);
      mixIds[i] = file.id;
    });
    const uploadedAt = performance.now();
    const readyAt = await waitReady(api, mixIds, Math.max(120_000, bodies.length * 5_000));
    const platformSeconds = (readyAt - started) / 1000;
    const platformCpuMs = (cpuSeconds(embedded.child.pid) - platformCpu) * 1000;
    // Per file: from its row (BeginUpload) to `ready` (processedAt), as the platform recorded them.
    const perFile = [];
    let chunks = 0;
    for (const id of mixIds) {
      const { file } = await api.request('GET', `/api/files/${id}`);
      perFile.push(Date.parse(file.processedAt) - Date.parse(file.createdAt));
      chunks += file.chunkCount;
    }
    await deleteFiles(api, fileIds.splice(0));

    // Baseline: the same bytes through extractText in this process, warmed up by one pass.
    const extraction = (file) => path.join(root, 'dist/libs/files/src/service/extraction', file);
    const { extractText } = await import(extraction('extract-text.js'));
    const { runExtraction } = await import(extraction('run-extraction.js'));
    const { DEFAULT_EXTRACTION_LIMITS: limits } = await import(extraction('extraction-limits.js'));
    for (const f of mix) {
      const { text } = await extractText(f.bytes, f.kind, limits);
      if (!text) throw new Error(`extractText found no text in ${f.name}`);
    }
    const direct = [];
    const directCpu = process.cpuUsage();
    const directStarted = performance.now();
    for (const f of bodies) {
      const t = performance.now();
      await extractText(f.bytes, f.kind, limits);
      direct.push(performance.now() - t);
    }
    const directSeconds = (performance.now() - directStarted) / 1000;
    const { user, system } = process.cpuUsage(directCpu);
    const directCpuMs = (user + system) / 1000;
    // For where the time goes: the same extraction through runExtraction (a worker thread per
    // file, as the platform runs it), one pass of the mix, one file after another.
    const worker = [];
    for (const f of mix) {
      const t = performance.now();
      await runExtraction(f.bytes, f.kind, limits);
      worker.push(performance.now() - t);
    }
    const workerPerFile = worker.reduce((a, b) => a + b, 0) / worker.length;

    const latency = (samples) => {
      const { p50, p99 } = percentiles(samples);
      return { p50, p99 };
    };
    const platformRate = bodies.length / platformSeconds;
    const directRate = bodies.length / directSeconds;
    return [
      {
        scenario: 'POST /api/files/upload vs bare Fastify + busboy into LocalDiskStorage',
        unit: 'MiB/s',
        platform: platformUpload,
        baseline: baselineUpload,
        ratio: platformUpload.rps / baselineUpload.rps,
        target: UPLOAD_TARGET,
        note: `embedded mode; ${UPLOADS} uploads of ${UPLOAD_BYTES / MiB} MiB (random bytes, kind other: not extracted), ${UPLOAD_CONCURRENCY} at a time, one file per request; p50/p99 per upload; CPU per MiB ${platformUpload.cpuMsPerMiB} ms (platform process) vs ${baselineUpload.cpuMsPerMiB} ms (bare process)`,
      },
      {
        scenario: 'files uploaded to ready vs extractText in-process',
        unit: 'files/s',
        platform: {
          rps: +platformRate.toFixed(2),
          ...latency(perFile),
          files: bodies.length,
          chunks,
          seconds: +platformSeconds.toFixed(2),
          uploadSeconds: +((uploadedAt - started) / 1000).toFixed(2),
          cpuMsPerFile: +(platformCpuMs / bodies.length).toFixed(1),
        },
        baseline: {
          rps: +directRate.toFixed(2),
          ...latency(direct),
          seconds: +directSeconds.toFixed(2),
          cpuMsPerFile: +(directCpuMs / bodies.length).toFixed(1),
          workerThreadMsPerFile: +workerPerFile.toFixed(1),
        },
        ratio: platformRate / directRate,
        target: EXTRACTION_TARGET,
        note: `embedded mode; ${ROUNDS} x (${mix.map((f) => f.name).join(', ')}; report.pdf ${BIG_PDF_PAGES} pages, ${Math.round(mix.at(-1).bytes.length / 1024)} KiB), ${MIX_CONCURRENCY} uploads at a time; all uploaded in ${((uploadedAt - started) / 1000).toFixed(1)} s, all ready ${((readyAt - uploadedAt) / 1000).toFixed(1)} s later, ${chunks} chunks; platform p50/p99: row to ready per file; baseline: sequential, warmed up; CPU per file ${(platformCpuMs / bodies.length).toFixed(0)} ms (platform process) vs ${(directCpuMs / bodies.length).toFixed(1)} ms; runExtraction (worker threads, kept between files as in the platform) ${workerPerFile.toFixed(0)} ms a file`,
      },
    ];
  } finally {
    if (bare) await stop(bare.child);
    rmSync(blobDir, { recursive: true, force: true });
    if (fileIds.length > 0) await deleteFiles(api, fileIds).catch(() => undefined);
  }
}
