'use strict';
/**
 * The upload (`BENCH_ONLY=upload`, and in a full run; the service alone, measured): a file of
 * `BENCH_UPLOAD_MIB` (100) MiB sent through tus in chunks of `BENCH_UPLOAD_CHUNK_MIB` (5) MiB, one
 * PATCH after the other, to a service started for this section (database `bench_upload`, dropped at
 * the end; `DATA_DIR` in a temporary folder), and the same PATCHes to a bare Node HTTP server that
 * writes each body to a file in the same folder (bench/baseline/upload-server.js: no framework, no
 * checks), the real limit of an upload over HTTP on this machine. Both servers run through the
 * whole section and each takes a 1 MiB upload first, unmeasured. Then `UPLOAD_PAIRS` pairs of
 * uploads, one to each side, the side that goes first alternating from pair to pair, so what the
 * machine is doing meanwhile falls on both sides alike. Measured:
 *
 * - throughput: the bytes over the time from the first PATCH to the last answer, the median over
 *   the pairs on each side, and the ratio of the medians (the pairs' own ratios, min–max, beside
 *   it); the goal, at least `UPLOAD_THROUGHPUT_GOAL`;
 * - the service's memory: its RSS idle before the pairs (the median of 10 samples over 2 s, once the
 *   1 MiB upload has been taken and processed; the figure before it is printed too), and its peak
 *   (VmHWM reset before, and VmRSS sampled every 100 ms) while the bytes of its uploads arrive, then
 *   while each finished upload is processed (sniffed, hashed, its duration read) until its asset is
 *   `ready`, over all the pairs;
 * - the service's CPU (every thread's, from /proc) per MiB while the bytes arrive, over all its uploads.
 *
 * The file is a mono 16-bit PCM WAV, so processing finds the type its asset declares. The bound of
 * issue 39: the peak at most `UPLOAD_RSS_BOUND_MB` above idle, whatever the file's size.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { settings, log, sleep } = require('./settings');
const { call, expectStatus, median } = require('./runner');
const {
  argsFor,
  baselineLaunchEnv,
  cleanups,
  dropDatabase,
  startServer,
  startService,
  stopServer,
} = require('./processes');
const { watchMemory, watchCpu } = require('./monitor');
const { PASSWORD } = require('./seed');

const DATABASE = 'bench_upload';
const MIB = 1024 * 1024;
const UPLOAD_RSS_BOUND_MB = 20;
/** The service's upload throughput against the bare server's: at least this share of it. */
const UPLOAD_THROUGHPUT_GOAL = 0.8;
/** Uploads measured on each side, in pairs. */
const UPLOAD_PAIRS = 3;
const BARE_SERVER = path.join(__dirname, 'baseline', 'upload-server.js');
const TUS = { 'tus-resumable': '1.0.0' };

/** Mono 16-bit PCM at 8 kHz: a 44-byte header, then samples up to `size` bytes in all. */
function writeWav(file, size) {
  const rate = 8000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(size - 8, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(size - 44, 40);
  // One second of a 440 Hz tone, repeated: the bytes differ along each block, as a recording's do.
  const second = Buffer.alloc(rate * 2);
  for (let i = 0; i < rate; i += 1)
    second.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, header);
    for (let written = 44; written < size;) {
      const n = Math.min(second.length, size - written);
      fs.writeSync(fd, second, 0, n);
      written += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function rssKb(pid) {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

async function idleRssKb(pid) {
  const samples = [];
  for (let i = 0; i < 10; i += 1) {
    samples.push(rssKb(pid));
    await sleep(200);
  }
  return median(samples);
}

/** An admin with a channel and a content project, ready to hold an asset. */
async function owner(service, db) {
  const admin = { email: `bench.upload.${Date.now()}@example.com`, password: PASSWORD };
  await expectStatus(
    service,
    'signup',
    201,
    call(service, 'POST', '/api/v1/signup', {
      body: { firstName: 'Bench', lastName: 'Uploader', role: 'admin', accountName: 'Bench uploads', ...admin },
    }),
  );
  await db.collection('users').updateOne({ email: admin.email }, { $set: { emailVerifiedAt: new Date() } });
  const token = (await expectStatus(service, 'login', 200, call(service, 'POST', '/api/v1/login', { body: admin })))
    .json.accessToken;
  const client = await expectStatus(
    service,
    'POST /clients',
    201,
    call(service, 'POST', '/clients', {
      token,
      body: { name: 'Bench client', email: `upload.${Date.now()}@example.com` },
    }),
  );
  const channel = await expectStatus(
    service,
    'POST /channels',
    200,
    call(service, 'POST', '/channels', {
      token,
      body: {
        clientId: client.json.id,
        name: 'Bench channel',
        username: `bench-upload-${Date.now()}`,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      },
    }),
  );
  const project = await expectStatus(
    service,
    'POST /channels/:id/projects',
    201,
    call(service, 'POST', `/channels/${channel.json.id}/projects`, {
      token,
      body: { projectTypeId: 'album', primaryTitle: 'Bench uploads' },
    }),
  );
  return { token, projectId: project.json._id };
}

/** Sends the file in chunks: the seconds from the first PATCH to the last answer. */
async function upload(service, token, assetId, file, size, chunkBytes) {
  const url = `${service.base}/assets/${assetId}/upload`;
  const auth = { authorization: `Bearer ${token}` };
  const created = await fetch(url, { method: 'POST', headers: { ...TUS, ...auth, 'upload-length': String(size) } });
  if (created.status !== 201) throw new Error(`tus creation answered ${created.status} ${await created.text()}`);
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(chunkBytes);
    const started = performance.now();
    for (let offset = 0; offset < size;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunkBytes, size - offset), offset);
      const response = await fetch(url, {
        method: 'PATCH',
        headers: {
          ...TUS,
          ...auth,
          'content-type': 'application/offset+octet-stream',
          'upload-offset': String(offset),
        },
        body: chunk.subarray(0, n),
        signal: AbortSignal.timeout(300_000),
      });
      const answered = response.headers.get('upload-offset');
      await response.arrayBuffer();
      if (response.status !== 204 || answered !== String(offset + n))
        throw new Error(`PATCH at ${offset} answered ${response.status}, Upload-Offset ${answered}`);
      offset += n;
    }
    return (performance.now() - started) / 1000;
  } finally {
    fs.closeSync(fd);
  }
}

function cpuText(msPerMib) {
  return msPerMib === undefined ? 'not read' : `${msPerMib.toFixed(1)} ms per MiB`;
}

async function settled(service, token, assetId, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const asset = await expectStatus(
      service,
      'GET /assets/:id',
      200,
      call(service, 'GET', `/assets/${assetId}`, { token }),
    );
    if (asset.json.status === 'ready' || asset.json.status === 'errored') return asset.json;
    if (Date.now() > deadline) throw new Error(`the asset is still ${asset.json.status} after ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** The section: returns what the report prints (or `failed`). */
async function measureUpload(database, mongo, shared, nodeArgs) {
  const size = settings.uploadMib * MIB;
  const chunkBytes = settings.uploadChunkMib * MIB;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-bench-upload-'));
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  const db = mongo.db(DATABASE);
  log(
    `  Upload: ${settings.uploadMib} MiB through tus in ${settings.uploadChunkMib} MiB chunks, against a bare Node HTTP server writing to the same disk (${folder})`,
  );
  let service;
  let bare;
  try {
    const source = path.join(folder, 'source.wav');
    writeWav(source, size);
    const bareFolder = path.join(folder, 'bare');
    fs.mkdirSync(bareFolder, { recursive: true });
    // Under production's Node options and environment too, as the bench's baseline (argsFor).
    bare = await startServer(
      'upload-baseline',
      BARE_SERVER,
      { ...baselineLaunchEnv(), UPLOAD_DIR: bareFolder },
      argsFor('baseline', false),
    );
    service = await startService(
      'service-upload',
      { ...shared, DATA_DIR: path.join(folder, 'data') },
      database,
      DATABASE,
      nodeArgs,
    );
    const { token, projectId } = await owner(service, db);
    const newAsset = async (bytes) =>
      (
        await expectStatus(
          service,
          'POST /projects/:id/assets',
          201,
          call(service, 'POST', `/projects/${projectId}/assets`, {
            token,
            body: { kind: 'audio', title: 'Bench upload', fileName: 'bench.wav', mimeType: 'audio/wav', size: bytes },
          }),
        )
      ).json.asset.id;
    let bareUploads = 0;
    /** One upload to the bare server, its file removed after: the seconds. */
    const toBare = async (file, bytes) => {
      const id = String(bareUploads++).padStart(24, '0');
      const seconds = await upload(bare, '', id, file, bytes, chunkBytes);
      fs.rmSync(path.join(bareFolder, id), { force: true });
      return seconds;
    };
    const pid = service.child.pid;
    await sleep(2_000);
    const coldIdleKb = await idleRssKb(pid);
    // One small upload to each side first, unmeasured: what an instance loads and compiles on its
    // first upload (the tus server's handlers, the processing libraries) is then in the idle figure,
    // as it is on any instance that has taken an upload before.
    const warmup = path.join(folder, 'warmup.wav');
    writeWav(warmup, MIB);
    const warmupId = await newAsset(MIB);
    await upload(service, token, warmupId, warmup, MIB, chunkBytes);
    if ((await settled(service, token, warmupId)).status !== 'ready')
      throw new Error('the warm-up upload did not end ready');
    await toBare(warmup, MIB);
    const assetIds = [];
    for (let i = 0; i < UPLOAD_PAIRS; i += 1) assetIds.push(await newAsset(size));
    await sleep(2_000);
    const idleKb = await idleRssKb(pid);

    const uploadMemory = { peakKb: 0 };
    const processingMemory = { peakKb: 0 };
    let cpuTicks = 0;
    let cpuRead = true;
    let processingSeconds = 0;
    const toService = async (assetId) => {
      const duringUpload = watchMemory(pid);
      const cpuDuringUpload = watchCpu(pid);
      const seconds = await upload(service, token, assetId, source, size, chunkBytes);
      const cpu = cpuDuringUpload();
      const memory = duringUpload();
      if (cpu) cpuTicks += cpu.process;
      else cpuRead = false;
      uploadMemory.peakKb = Math.max(uploadMemory.peakKb, memory.peakKb);
      uploadMemory.source = memory.source;
      const duringProcessing = watchMemory(pid);
      const processingStarted = performance.now();
      const asset = await settled(service, token, assetId);
      processingSeconds = Math.max(processingSeconds, (performance.now() - processingStarted) / 1000);
      processingMemory.peakKb = Math.max(processingMemory.peakKb, duringProcessing().peakKb);
      if (asset.status !== 'ready') throw new Error(`the asset ended ${asset.status}: ${JSON.stringify(asset.error)}`);
      return seconds;
    };
    const serviceTimes = [];
    const bareTimes = [];
    for (let i = 0; i < UPLOAD_PAIRS; i += 1) {
      if (i % 2 === 0) {
        serviceTimes.push(await toService(assetIds[i]));
        bareTimes.push(await toBare(source, size));
      } else {
        bareTimes.push(await toBare(source, size));
        serviceTimes.push(await toService(assetIds[i]));
      }
    }
    const pairRatios = serviceTimes.map((seconds, i) => bareTimes[i] / seconds);
    const uploadSeconds = median(serviceTimes);
    const bareSeconds = median(bareTimes);
    const result = {
      mib: settings.uploadMib,
      chunkMib: settings.uploadChunkMib,
      pairs: UPLOAD_PAIRS,
      uploadSeconds,
      bareSeconds,
      serviceTimes,
      bareTimes,
      uploadMibPerSecond: settings.uploadMib / uploadSeconds,
      bareMibPerSecond: settings.uploadMib / bareSeconds,
      ratioMin: Math.min(...pairRatios),
      ratioMax: Math.max(...pairRatios),
      coldIdleKb,
      idleKb,
      uploadPeakKb: uploadMemory.peakKb,
      processingPeakKb: processingMemory.peakKb,
      processingSeconds,
      // Clock ticks are hundredths of a second.
      cpuMsPerMib: cpuRead ? (cpuTicks * 10) / (settings.uploadMib * UPLOAD_PAIRS) : undefined,
      memorySource: uploadMemory.source,
      boundMb: UPLOAD_RSS_BOUND_MB,
    };
    result.aboveIdleMb = (Math.max(result.uploadPeakKb, result.processingPeakKb) - idleKb) / 1024;
    result.holds = result.aboveIdleMb <= UPLOAD_RSS_BOUND_MB;
    result.throughputRatio = result.uploadMibPerSecond / result.bareMibPerSecond;
    result.throughputGoal = UPLOAD_THROUGHPUT_GOAL;
    log(
      `    tus ${result.uploadMibPerSecond.toFixed(1)} MiB/s (median ${uploadSeconds.toFixed(2)} s of ${UPLOAD_PAIRS}, service CPU ${cpuText(result.cpuMsPerMib)}), bare Node HTTP server ${result.bareMibPerSecond.toFixed(1)} MiB/s (${bareSeconds.toFixed(2)} s), ` +
        `ratio ${result.throughputRatio.toFixed(2)} (pairs ${result.ratioMin.toFixed(2)}–${result.ratioMax.toFixed(2)}; goal ${UPLOAD_THROUGHPUT_GOAL}); ` +
        `RSS idle ${(coldIdleKb / 1024).toFixed(1)} MB before any upload, ${(idleKb / 1024).toFixed(1)} MB after a 1 MiB one, peak uploading ${(result.uploadPeakKb / 1024).toFixed(1)} MB, processing ${(result.processingPeakKb / 1024).toFixed(1)} MB ` +
        `(at most ${processingSeconds.toFixed(1)} s): ${result.aboveIdleMb.toFixed(1)} MB above idle (bound ${UPLOAD_RSS_BOUND_MB})`,
    );
    return result;
  } catch (error) {
    log(`    FAILED: ${error.message}`);
    return { failed: error.message };
  } finally {
    if (service) await stopServer(service);
    if (bare) await stopServer(bare);
    await dropDatabase(database, mongo, DATABASE).catch(() => undefined);
  }
}

module.exports = { measureUpload, cpuText, UPLOAD_RSS_BOUND_MB, UPLOAD_THROUGHPUT_GOAL };
