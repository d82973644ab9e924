'use strict';
/**
 * The report: the main table, the bounds table, the neighbours tables, the notes under them, the
 * CPU profile summaries, and bench/results/latest.md and latest.json.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { analyseProfile, formatAnalysis } = require('./cpuprofile');
const { ROOT, RESULTS_DIR, COPY_DIST, settings, log } = require('./settings');
const { fmt, table } = require('./format');
const { neighboursReport } = require('./neighbours');
const { cpuText } = require('./uploads');
const { IDLE_RSS_MB, PEAK_RSS_MB } = require('./memory-bounds');

const perDelivery = (side) => (side?.perDelivery === undefined ? '-' : fmt.count(side.perDelivery));

/** Where a CPU ratio sits against the run's A/A band: inside it, above or below, or no band measured. */
function bandNote(figure, selfBand) {
  const band = selfBand?.summary;
  if (figure?.cpuRatio === undefined || band?.cpuRatioMin === undefined) return ', no A/A band in this run';
  const where = figure.cpuRatio > band.cpuRatioMax ? 'above' : figure.cpuRatio < band.cpuRatioMin ? 'below' : 'inside';
  return `, ${where} this run's A/A band (CPU ratio ${fmt.cpuSpread(band)})`;
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

function gitDescription() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `${commit}${dirty ? ' (src/ with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

/**
 * Prints and writes everything measured; returns whether nothing failed. `run` holds what main
 * gathered: info, database, loadBefore, loadAfter, results, bounds, webhookCost, webhookFailures,
 * profiles, service and baseline (absent when no section needed them), neighbours.
 */
/**
 * The memory bounds of issue 53 (bench/memory-bounds.js): the service idle before any request, and
 * its peak in every measured round (the A/A band's copies and the webhook cost's included) and in
 * the upload.
 */
function memoryFailures(run) {
  const failures = [];
  const above = (kb, mb) => kb !== undefined && kb > mb * 1024;
  if (above(run.serviceIdleKb, IDLE_RSS_MB))
    failures.push(`the service's idle RSS is ${fmt.mb(run.serviceIdleKb)}, above ${IDLE_RSS_MB} MB`);
  for (const row of [...run.results, ...(run.selfBand ? [run.selfBand] : [])]) {
    for (const side of row === run.selfBand ? ['service', 'baseline'] : ['service']) {
      const peak = row.summary?.[side]?.peakKb;
      if (above(peak, PEAK_RSS_MB))
        failures.push(
          `${row === run.selfBand ? 'A/A band, ' : ''}${row.title}: the ${side}'s peak RSS is ${fmt.mb(peak)}, above ${PEAK_RSS_MB} MB`,
        );
    }
  }
  const webhookPeak = run.webhookCost?.summary?.service?.peakKb;
  if (above(webhookPeak, PEAK_RSS_MB))
    failures.push(`webhook cost: the service's peak RSS is ${fmt.mb(webhookPeak)}, above ${PEAK_RSS_MB} MB`);
  const upload = run.upload;
  for (const [label, peak] of [
    ['while the bytes arrived', upload?.uploadPeakKb],
    ['while the upload was processed', upload?.processingPeakKb],
  ]) {
    if (above(peak, PEAK_RSS_MB))
      failures.push(`upload: the service's peak RSS ${label} is ${fmt.mb(peak)}, above ${PEAK_RSS_MB} MB`);
  }
  return failures;
}

function report(run) {
  const {
    info,
    database,
    loadBefore,
    loadAfter,
    results,
    bounds,
    webhookCost,
    webhookFailures,
    profiles,
    service,
    baseline,
    neighbours,
  } = run;
  // The main table's servers run only when a scenario, the bounds or the webhook cost was selected.
  const mainRan = service !== undefined;
  const measured = results.filter((row) => row.summary);
  const selfBand = run.selfBand;
  const rowCells = (row, title = row.title) =>
    row.summary
      ? [
          title,
          fmt.commands(row.commands?.service),
          fmt.commands(row.commands?.baseline),
          fmt.micros(row.summary.service.cpu.judged),
          fmt.micros(row.summary.baseline.cpu.judged),
          `${fmt.ratio(row.summary.cpuRatio)} (${fmt.cpuSpread(row.summary)})`,
          fmt.ratio(row.summary.machineCpuRatio),
          fmt.rps(row.summary.service.rps),
          fmt.rps(row.summary.baseline.rps),
          `${fmt.ratio(row.summary.ratio)} (${fmt.spread(row.summary)})`,
          fmt.lat(row.summary.service),
          fmt.lat(row.summary.baseline),
          fmt.mb(row.summary.service.peakKb),
        ]
      : [
          title,
          fmt.commands(row.commands?.service),
          fmt.commands(row.commands?.baseline),
          row.countedOnly ? 'counted only' : 'FAILED',
          '-',
          '-',
          '-',
          '-',
          '-',
          '-',
          '-',
          '-',
          '-',
        ];
  const main = table(
    [
      'Scenario',
      'commands/req service',
      'baseline',
      'CPU µs/req service',
      'baseline',
      'CPU ratio (rounds)',
      'machine CPU ratio',
      'req/s service',
      'baseline',
      'throughput ratio (rounds)',
      'service p50/p99 ms',
      'baseline p50/p99 ms',
      'service peak RSS',
    ],
    [
      ...results.map((row) => rowCells(row)),
      ...(selfBand ? [rowCells(selfBand, `A/A band: ${selfBand.title}, the service against a copy of itself`)] : []),
    ],
  );
  const boundsTable = table(
    [
      'Bounds (measured, not asserted)',
      'returned / X-Total-Count',
      'JSON body',
      'service alone ms',
      'service req/s',
      'service p50/p99 ms',
      'baseline alone ms',
      'baseline req/s',
      'baseline p50/p99 ms',
    ],
    bounds.map((row) => [
      row.label,
      `${row.returned} / ${row.total}`,
      row.bodyKiB === undefined ? '-' : `${row.bodyKiB.toFixed(1)} KiB`,
      fmt.ms(row.serviceAlone),
      fmt.roundRps(row.service),
      fmt.roundLat(row.service, settings.seconds * 2),
      fmt.ms(row.baselineAlone),
      fmt.roundRps(row.baseline),
      fmt.roundLat(row.baseline, settings.seconds * 2),
    ]),
  );
  const failures = [];
  for (const row of results) for (const failure of row.failed) failures.push(`${row.title}: ${failure}`);
  for (const failure of selfBand?.failed ?? []) failures.push(`A/A band, ${selfBand.title}: ${failure}`);
  failures.push(...webhookFailures);
  failures.push(...memoryFailures(run));
  const neighbourReports = (neighbours ?? []).map(neighboursReport);
  const neighbourReport =
    neighbourReports.length === 0
      ? undefined
      : {
          tables: neighbourReports.flatMap((part) => part.tables),
          notes: neighbourReports.flatMap((part) => part.notes),
          failures: neighbourReports.flatMap((part) => part.failures),
          json: neighbourReports.map((part) => part.json),
        };
  if (neighbourReport) failures.push(...neighbourReport.failures);
  for (const row of bounds) {
    if (row.service?.failed) failures.push(`${row.label} on service: ${row.service.failed}`);
    if (row.baseline?.failed) failures.push(`${row.label} on baseline: ${row.baseline.failed}`);
  }
  const sizes = measured
    .filter((row) => row.summary.service.bytesPerResponse && row.summary.baseline.bytesPerResponse)
    .map(
      (row) =>
        `${row.title} ${row.summary.service.bytesPerResponse.toFixed(0)} vs ${row.summary.baseline.bytesPerResponse.toFixed(0)}`,
    );
  const lifetimes = Math.max(1, ...measured.map((row) => new Set(row.rounds.map((r) => r.lifetime)).size));
  const memorySource =
    measured.flatMap((row) => row.rounds.map((r) => r.service?.memorySource)).find(Boolean) ?? 'VmHWM';
  const notes = [
    `req/s: completed requests over each ${settings.seconds} s round; the table shows the median round of each side, the median of the ` +
      `per-round ratios (service ÷ baseline, rounds paired in order) and their min–max. ${settings.rounds} rounds per side, alternating, ` +
      `after a ${settings.warmup} s warm-up per side; ${settings.connections} connections.` +
      (lifetimes > 1
        ? ` The rounds are split over ${lifetimes} lifetimes of both servers, started in alternating order ` +
          `(after each restart a ${Math.max(settings.warmup, settings.restartWarmup)} s warm-up per side).`
        : ''),
    'p50/p99: autocannon latencies in ms, median over the rounds. Peak RSS: the highest of the rounds, from /proc/<pid>/status ' +
      `(${memorySource}, reset before each round).`,
    "Commands/req: database commands a request sends before its answer (started in its async context), counted by the driver's " +
      'command monitoring (`commandStarted`) on a separate counting instance of each side (bench/count-commands.js), 20 requests sent one at a ' +
      "time after 20 unmeasured: the median request's count (the mean beside it when they differ: a command of work an earlier request left " +
      'running, started during this one); "outside": other commands started during the probe, per request (work after the answer, timers, ' +
      "sweeps). Exact, and the same on MongoDB; a scenario whose service count exceeds the baseline's fails.",
    "CPU µs/req: CPU time of the server process plus the database server's processes (FerretDB, PostgreSQL's postmaster and every backend) " +
      "during the side's rounds, over the requests completed, median over the rounds (/proc clock ticks of 10 ms: less exact than the counts). " +
      "CPU ratio: service ÷ baseline, paired rounds (above 1: the service spends more); machine CPU ratio: the same for the whole machine's busy " +
      'time (load generator included). Throughput ratio: service ÷ baseline, paired rounds (below 1: the service is slower).',
    ...(selfBand?.summary
      ? [
          `A/A band (this run): ${selfBand.title} with a second copy of the service in the baseline's place, the same rounds and lifetimes: ` +
            `throughput ratio ${fmt.ratio(selfBand.summary.ratio)} (rounds ${fmt.spread(selfBand.summary)}), CPU ratio ${fmt.ratio(selfBand.summary.cpuRatio)} ` +
            `(rounds ${fmt.cpuSpread(selfBand.summary)}): how far a ratio moves here when there is nothing to measure.`,
        ]
      : []),
    ...(run.serviceIdleKb !== undefined
      ? [
          `Memory (issue 53): the service's RSS idle before any request ${fmt.mb(run.serviceIdleKb)} (bound ${IDLE_RSS_MB} MB); its peak RSS in every measured round ` +
            `(column "service peak RSS"), the webhook cost's and the upload's included, at most ${PEAK_RSS_MB} MB. Either above its bound fails the run.`,
        ]
      : []),
    `Response shapes: ${settings.shapeSamples} responses per side and scenario compared field by field (types, null included) before measuring.`,
    'Client (autocannon, in the orchestrating Node process), service, baseline and database share the same cores.',
    `Load average before ${loadBefore}, after ${loadAfter}.`,
  ];
  // Without the main table only the load average says something.
  if (!mainRan) notes.splice(0, notes.length - 1);
  if (bounds.length > 0) {
    notes.push(
      `Bounds: "alone" is the median of 5 requests sent one at a time; req/s and p50/p99 come from one ${settings.seconds * 2} s run with ${settings.boundsConnections} connections.`,
    );
  }
  if (webhookCost) {
    const w = webhookCost.summary;
    const side = (name) => {
      const x = webhookCost.sides[name];
      return (
        `${name}: change to receipt p50 ${fmt.ms(x.p50)} ms, p99 ${fmt.ms(x.p99)} ms over ${x.deliveries} deliveries, ` +
        `${fmt.rps(x.deliveriesPerSecond)} deliveries a second from the one instance (median round, its drain included)` +
        (x.duplicates > 0 ? `, ${x.duplicates} received twice` : '') +
        (x.badSignatures > 0 ? `, ${x.badSignatures} with a bad signature` : '')
      );
    };
    notes.push(
      'Webhook cost: POST /api/v1/payments in a project with one enabled endpoint (`*`, a local receiver answering 204 and verifying each ' +
        'signature), on both sides: the service through its outbox and dispatcher, the baseline with an event insert, a signed POST and a ' +
        `delivery record. Database commands per delivered payment (a counting instance of each side; the requests' commands and the ` +
        `delivery's after them) ${perDelivery(webhookCost.commands?.service)} vs ${perDelivery(webhookCost.commands?.baseline)}` +
        (webhookCost.commands?.service
          ? `, the service besides reading its endpoints' cache ${webhookCost.commands.service.refreshes} time(s) in ${webhookCost.commands.service.seconds.toFixed(1)} s. `
          : '. ') +
        `${settings.rounds} alternating rounds; after each, the side's deliveries drain. CPU µs a delivery (server + database, ` +
        `the round and its drain) ${fmt.micros(w.delivery?.service)} vs ${fmt.micros(w.delivery?.baseline)}, ratio ${fmt.ratio(w.delivery?.cpuRatio)} ` +
        `(rounds ${w.delivery ? fmt.cpuSpread(w.delivery) : '-'})${bandNote(w.delivery, selfBand)}; CPU µs a request, the round alone, ` +
        `${fmt.micros(w.service.cpu.judged)} vs ${fmt.micros(w.baseline.cpu.judged)}, ratio ${fmt.ratio(w.cpuRatio)} (rounds ${fmt.cpuSpread(w)}); ` +
        `throughput ratio ${fmt.ratio(w.ratio)} (rounds ${fmt.spread(w)}, shown, not judged); the service's peak RSS ` +
        `${fmt.mb(w.service.peakKb)}; ${side('service')} (p99 judged: under ` +
        `${webhookCost.receiptP99Ms} ms); ${side('baseline')}.`,
    );
    for (const name of ['service', 'baseline']) {
      if (webhookCost.sides[name].badSignatures > 0)
        failures.push(
          `webhook cost: ${webhookCost.sides[name].badSignatures} deliveries of the ${name} failed signature verification`,
        );
    }
  }
  const upload = run.upload;
  if (upload?.failed) failures.push(`upload: ${upload.failed}`);
  else if (upload) {
    const mb = (kb) => (kb / 1024).toFixed(1);
    notes.push(
      `Upload: ${upload.mib} MiB through tus in ${upload.chunkMib} MiB PATCHes, one at a time, to a service of its own, and the same PATCHes to a bare Node HTTP server ` +
        `writing to the same disk, in ${upload.pairs} pairs (the side that goes first alternating): the service ${upload.uploadMibPerSecond.toFixed(1)} MiB/s (median ${upload.uploadSeconds.toFixed(2)} s; its CPU ${cpuText(upload.cpuMsPerMib)}), ` +
        `the bare server ${upload.bareMibPerSecond.toFixed(1)} MiB/s (median ${upload.bareSeconds.toFixed(2)} s), ratio ${upload.throughputRatio.toFixed(2)} (pairs ${upload.ratioMin.toFixed(2)}–${upload.ratioMax.toFixed(2)}; ` +
        `goal ${upload.throughputGoal}: ${upload.throughputRatio >= upload.throughputGoal ? 'met' : 'NOT met'}). ` +
        `Service RSS idle ${mb(upload.idleKb)} MB after a 1 MiB upload (${mb(upload.coldIdleKb)} MB before any); peak while the bytes arrived ${mb(upload.uploadPeakKb)} MB, while the uploads were processed ` +
        `${mb(upload.processingPeakKb)} MB (at most ${upload.processingSeconds.toFixed(1)} s until ready; ${upload.memorySource}): ${upload.aboveIdleMb.toFixed(1)} MB above idle, ` +
        `bound ${upload.boundMb} MB: ${upload.holds ? 'holds' : 'does NOT hold'}.`,
    );
  }
  if (neighbourReport) notes.push(...neighbourReport.notes);
  for (const row of results.filter((r) => r.commandsAbove)) {
    const { of, extra, allowed } = row.commandsAbove;
    const reference = results.find((r) => r.key === of)?.title ?? of;
    notes.push(
      `${row.title}: ${fmt.count(extra)} database commands a request more than ${reference} on the service (at most ${allowed} allowed).`,
    );
  }
  if (sizes.length > 0) notes.push(`Bytes per response, headers included, service vs baseline: ${sizes.join('; ')}.`);
  const cpu = measured
    .filter((row) => row.summary.service.cpu?.process && row.summary.baseline.cpu?.process)
    .map((row) => {
      const [a, b] = [row.summary.service.cpu, row.summary.baseline.cpu];
      return `${row.title} ${a.main}/${a.process}/${a.machine} vs ${b.main}/${b.process}/${b.machine}`;
    });
  if (cpu.length > 0) {
    notes.push(
      'CPU µs per request, median over the rounds, service vs baseline, as main thread / whole server process / whole machine ' +
        `(database and load generator included; /proc clock ticks of 10 ms): ${cpu.join('; ')}.`,
    );
  }

  if (mainRan) {
    log('');
    log(main.text);
  }
  if (bounds.length > 0) {
    log('');
    log(boundsTable.text);
  }
  for (const section of neighbourReport?.tables ?? []) {
    log('');
    log(section.text);
  }
  log('');
  for (const note of notes) log(note);

  // CPU profiles: self time by package/file and pipeline stage, per scenario (the rounds of that side only).
  const profileSummaries = [];
  for (const { side, file } of profiles) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const row of measured) {
      const windows = row.rounds.map((r) => r[side]?.window).filter(Boolean);
      const requests = row.rounds.reduce((sum, r) => sum + (r[side]?.total ?? 0), 0);
      const analysis = analyseProfile(profile, { windows, requests });
      const text = formatAnalysis(analysis, { title: `${side}: ${row.title} (${path.relative(ROOT, file)})` });
      const out = path.join(RESULTS_DIR, `profile-${side}-${row.key}.txt`);
      fs.writeFileSync(out, `${text}\n`);
      profileSummaries.push({
        side,
        scenario: row.key,
        file: path.relative(ROOT, file),
        summary: path.relative(ROOT, out),
        analysis,
      });
      log('');
      log(text);
    }
  }

  if (failures.length > 0) {
    log('');
    log('FAILED:');
    for (const failure of failures) log(`  - ${failure}`);
  } else if (mainRan) {
    log(
      'Response shapes: the service and the baseline answered every measured scenario with bodies of the same shape.',
    );
  }

  const commit = gitDescription();
  const markdown = [
    '# Benchmark results',
    '',
    `Generated ${new Date().toISOString()} by \`npm run bench\` at ${commit}.`,
    '',
    `Machine: ${info.cores} cores, ${info.cpu}, ${info.memory} RAM, Node ${info.node}, ${info.platform}.`,
    `Database: embedded ${database.engine}. Service: NODE_ENV=production, LOG_LEVEL=${settings.logLevel}. bcrypt cost ${settings.bcryptRounds} on both servers.`,
    '',
    ...(mainRan ? [main.markdown, ''] : []),
    ...(bounds.length > 0 ? [boundsTable.markdown, ''] : []),
    ...(neighbourReport?.tables ?? []).flatMap((section) => [section.markdown, '']),
    ...notes.map((note) => `- ${note}`),
    ...(failures.length > 0
      ? ['', '**Failed:**', ...failures.map((failure) => `- ${failure.replace(/\n/g, ' ')}`)]
      : []),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdown);

  const json = {
    generatedAt: new Date().toISOString(),
    commit,
    machine: info,
    database: database.engine,
    loadAverage: { before: loadBefore, after: loadAfter },
    upload: run.upload,
    memory: { serviceIdleKb: run.serviceIdleKb, idleBoundMb: IDLE_RSS_MB, peakBoundMb: PEAK_RSS_MB },
    settings: {
      quick: settings.quick,
      rounds: settings.rounds,
      seconds: settings.seconds,
      warmup: settings.warmup,
      connections: settings.connections,
      logLevel: settings.logLevel,
      bcryptRounds: settings.bcryptRounds,
      only: settings.only,
      serviceNodeArgs: service?.nodeArgs,
      serviceEnv: settings.serviceEnv,
      baselineNodeArgs: baseline?.nodeArgs,
      baselineOnNodeDefaults: settings.baselineOnNodeDefaults,
      copyDist: COPY_DIST ? path.relative(ROOT, COPY_DIST) : null,
      neighboursMax: settings.neighboursMax,
      neighboursApiMax: settings.neighboursApiMax,
      neighboursRequests: settings.neighboursRequests,
    },
    pids: { service: service?.child.pid, baseline: baseline?.child.pid, database: database.pids },
    scenarios: results.map((row) => ({
      key: row.key,
      title: row.title,
      order: row.order,
      bodyBytes: row.bodyBytes,
      commands: row.commands,
      commandsAbove: row.commandsAbove,
      failed: row.failed,
      summary: row.summary,
      // Windows are on the monotonic clock of V8's CPU profiler (µs): bench/cpuprofile.js cuts profiles with them.
      rounds: row.rounds.map((pair) => ({
        lifetime: pair.lifetime,
        startedFirst: pair.startedFirst,
        ...Object.fromEntries(
          ['service', 'baseline']
            .filter((side) => pair[side])
            .map((side) => {
              const r = pair[side];
              return [
                side,
                {
                  rps: r.rps,
                  total: r.total,
                  p50: r.p50,
                  p99: r.p99,
                  peakKb: r.peakKb,
                  databasePeakKb: r.databasePeakKb,
                  databasePeakPssKb: r.databasePeakPssKb,
                  bytesPerResponse: r.bytesPerResponse,
                  cpuMicrosPerRequest: r.cpuMicrosPerRequest,
                  codes: r.codes,
                  failed: r.failed,
                  window: r.window,
                },
              ];
            }),
        ),
      })),
    })),
    bounds: bounds.map((row) => ({
      label: row.label,
      returned: row.returned,
      total: row.total,
      serviceAlone: row.serviceAlone,
      baselineAlone: row.baselineAlone,
      service: row.service && {
        rps: row.service.rps,
        p50: row.service.p50,
        p99: row.service.p99,
        failed: row.service.failed,
      },
      baseline: row.baseline && {
        rps: row.baseline.rps,
        p50: row.baseline.p50,
        p99: row.baseline.p99,
        failed: row.baseline.failed,
      },
    })),
    webhookCost: webhookCost && {
      summary: webhookCost.summary,
      sides: webhookCost.sides,
      commands: webhookCost.commands,
      receiptP99Ms: webhookCost.receiptP99Ms,
      rounds: webhookCost.rounds.map((pair) =>
        Object.fromEntries(
          ['service', 'baseline'].map((name) => [
            name,
            {
              rps: pair[name].rps,
              total: pair[name].total,
              window: pair[name].window,
              cpuMicrosPerRequest: pair[name].cpuMicrosPerRequest,
              cpuMicrosPerDelivery: pair[name].cpuMicrosPerDelivery,
              delivered: pair[name].delivered,
              drainMs: pair[name].drainMs,
              deliveriesPerSecond: pair[name].deliveriesPerSecond,
            },
          ]),
        ),
      ),
    },
    selfBand: run.selfBand && { title: run.selfBand.title, summary: run.selfBand.summary, failed: run.selfBand.failed },
    neighbours: neighbourReport?.json,
    profiles: profileSummaries.map(({ side, scenario, file, summary, analysis }) => ({
      side,
      scenario,
      file,
      summary,
      perRequestMicros: analysis.perRequestMicros,
      busyShare: analysis.busyShare,
    })),
    failures,
  };
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  log(`\nWritten to ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.md'))} and latest.json`);
  return failures.length === 0;
}

module.exports = { machine, report };
