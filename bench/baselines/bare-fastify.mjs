// Baseline servers for the benchmark: the same work as the platform's route, with nothing of
// the platform around it (no auth, no access log, no metrics, no bus, no ORM). Prints the
// port it listens on as its first line.
//   node bench/baselines/bare-fastify.mjs version                       GET /api/version (static JSON)
//   node bench/baselines/bare-fastify.mjs nats <NATS_URL>               POST /echo: one bare request-reply over NATS
//   node bench/baselines/bare-fastify.mjs fragment-get <DATABASE_URL>   GET /fragments/:workspaceId/:id: the SELECT of one fragment row
//   node bench/baselines/bare-fastify.mjs fragment-create <DATABASE_URL> POST /fragments: one INSERT of a fragment row
//   node bench/baselines/bare-fastify.mjs files-upload <dir>            POST /upload: multipart parts streamed into LocalDiskStorage(<dir>)
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const [mode, url] = process.argv.slice(2);
const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });

/** The columns the fragments service reads (Prisma's findUnique selects every column). */
const COLUMNS = `id, workspace_id, fragment_type_id, title, content, summary, summary_source, tags, enhance_tags, key, status, created_via, version, enrichment,
  created_by, updated_by, created_at, updated_at, archived_at`;

if (mode === 'version') {
  const body = { version: '0.1.0', commit: 'unknown', builtAt: 'unknown', node: process.version, runMode: 'embedded' };
  app.get('/api/version', async () => body);
} else if (mode === 'nats') {
  const nc = await connect({ servers: url });
  const subject = `bench.echo.${process.pid}`;
  nc.subscribe(subject, { queue: 'bench', callback: (_err, msg) => msg.respond(msg.data) });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  app.post('/echo', async (request) => {
    const reply = await nc.request(subject, encoder.encode(JSON.stringify(request.body)), { timeout: 5000 });
    return JSON.parse(decoder.decode(reply.data));
  });
} else if (mode === 'fragment-get') {
  const pool = new pg.Pool({ connectionString: url });
  app.get('/fragments/:workspaceId/:id', async (request, reply) => {
    const { rows } = await pool.query(`SELECT ${COLUMNS} FROM data.fragments WHERE id = $1 AND workspace_id = $2`, [
      request.params.id,
      request.params.workspaceId,
    ]);
    if (rows.length === 0) return reply.code(404).send({ success: false });
    return { success: true, fragment: rows[0] };
  });
} else if (mode === 'fragment-create') {
  // The row the platform's create writes (same columns, same pending enrichment state);
  // workspace, type and author come with the request body.
  const pool = new pg.Pool({ connectionString: url });
  app.post('/fragments', async (request, reply) => {
    const b = request.body;
    const at = new Date().toISOString();
    const step = (state) => ({ state, attempts: 0, at });
    const enrichment = {
      summary: step('pending'),
      tags: step('pending'),
      embedding: step('pending'),
      graph: step('pending'),
    };
    const { rows } = await pool.query(
      `INSERT INTO data.fragments (workspace_id, fragment_type_id, title, content, tags, enhance_tags, created_via, enrichment, created_by, updated_by)
       VALUES ($1, $2, $3, $4, $5, false, 'api', $6, $7, $7) RETURNING ${COLUMNS}`,
      [b.workspaceId, b.fragmentTypeId, b.title, b.content, b.tags ?? [], enrichment, b.userId],
    );
    return reply.code(201).send({ success: true, fragment: rows[0] });
  });
} else if (mode === 'files-upload') {
  // The platform's storage adapter, built (dist/), so the bytes take the same path to disk: a
  // partial file, the SHA-256 meter, flush, rename. No reservation, no sniffing, no metadata.
  const { LocalDiskStorage } = await import('../../dist/libs/platform/storage/src/index.js');
  const { Busboy } = await import('@fastify/busboy');
  const storage = new LocalDiskStorage(url);
  const maxBytes = 100 * 1024 * 1024; // FILES_MAX_BYTES' default
  // The body is left unread for busboy, as the platform's upload route does.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
  app.post('/upload', async (request, reply) => {
    const stored = await new Promise((resolve, reject) => {
      const puts = [];
      let workspaceId = '';
      const parser = new Busboy({
        headers: request.headers,
        limits: { files: 20, fields: 10, fieldSize: 8192, parts: 30 },
      });
      parser.on('field', (name, value) => {
        if (name === 'workspaceId') workspaceId = value.trim();
      });
      parser.on('file', (name, stream, fileName) => {
        if (name !== 'file' || !workspaceId) {
          stream.resume();
          return void reject(new Error('a file part before workspaceId'));
        }
        const key = `files/${workspaceId}/${randomUUID()}`;
        puts.push(storage.put(key, stream, { maxBytes }).then((r) => ({ key, name: fileName, ...r })));
      });
      parser.on('finish', () => Promise.all(puts).then(resolve, reject));
      parser.on('error', reject);
      request.raw.pipe(parser);
    });
    if (stored.length === 0) return reply.code(400).send({ success: false });
    return reply.code(201).send({ success: true, files: stored });
  });
} else {
  console.error(
    'usage: bare-fastify.mjs version | nats <url> | fragment-get <database url> | fragment-create <database url> | files-upload <dir>',
  );
  process.exit(2);
}
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(app.server.address().port);
