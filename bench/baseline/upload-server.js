'use strict';
/**
 * The upload's baseline (bench/uploads.js): a bare Node HTTP server, no framework, that takes the
 * same tus requests the service takes and writes each PATCH's body to a file on the same disk, so
 * the service's upload is compared with the most the machine does over HTTP, not with a local copy.
 *
 * `POST <any path ending in an id>` with `Upload-Length` creates an empty file named by that id under
 * UPLOAD_DIR (201); `PATCH` with `Upload-Offset` streams the body into the file at that offset
 * (refused, 409, when the offset is not the file's size) and answers 204 with the new
 * `Upload-Offset`. Nothing else: no checks of who calls, no locks, no metadata.
 *
 * Environment: PORT, HOST (127.0.0.1), UPLOAD_DIR. `GET /health` answers 200 (the bench waits for it).
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');

const dir = process.env.UPLOAD_DIR;
if (!dir) throw new Error('UPLOAD_DIR is required');
const sizes = new Map();

function idOf(url) {
  const match = /([0-9a-f]{24})(?:\/upload)?\/?$/i.exec(url);
  return match ? match[1].toLowerCase() : undefined;
}

async function handle(request, response) {
  if (request.url === '/health') return response.writeHead(200).end('ok');
  const id = idOf(request.url);
  if (!id) return response.writeHead(404).end();
  const file = path.join(dir, id);
  if (request.method === 'POST') {
    fs.writeFileSync(file, '');
    sizes.set(id, 0);
    request.resume();
    return response.writeHead(201, { location: request.url, 'tus-resumable': '1.0.0' }).end();
  }
  if (request.method !== 'PATCH' || !sizes.has(id)) return response.writeHead(404).end();
  const offset = Number(request.headers['upload-offset']);
  if (offset !== sizes.get(id)) return response.writeHead(409).end();
  let received = 0;
  request.on('data', (chunk) => (received += chunk.length));
  await pipeline(request, fs.createWriteStream(file, { flags: 'r+', start: offset }));
  sizes.set(id, offset + received);
  response.writeHead(204, { 'upload-offset': String(offset + received), 'tus-resumable': '1.0.0' }).end();
}

http
  .createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500).end(error.message);
      else response.destroy(error);
    });
  })
  .listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? '127.0.0.1');
