'use strict';
/** Memory and CPU of the processes under test, from /proc. */
const fs = require('node:fs');

// ---------------------------------------------------------------- memory of a server process

function procStatusKb(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

/**
 * Peak RSS over one measurement: VmHWM is reset to the current RSS first (clear_refs "5"), so the
 * value read afterwards is the peak of this run, not of the process's life. VmRSS is also sampled
 * every 100 ms, in case the reset is not permitted.
 */
function watchMemory(pid) {
  let hwmReset = true;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false;
  }
  let sampled = procStatusKb(pid, 'VmRSS');
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, procStatusKb(pid, 'VmRSS'));
    } catch {
      // process gone; the caller notices
    }
  }, 100);
  return () => {
    clearInterval(timer);
    let hwm = 0;
    try {
      hwm = procStatusKb(pid, 'VmHWM');
    } catch {
      // process gone
    }
    return { peakKb: hwmReset ? Math.max(hwm, sampled) : sampled, source: hwmReset ? 'VmHWM' : 'VmRSS samples' };
  };
}

// ---------------------------------------------------------------- CPU of a round

/** utime + stime, in clock ticks, from a /proc/.../stat line (fields 14 and 15, after the command's parentheses). */
function statTicks(file) {
  const text = fs.readFileSync(file, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Busy ticks of the whole machine (all cores, idle and iowait left out), from /proc/stat. */
function machineBusyTicks() {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = values;
  return user + nice + system + irq + softirq + steal;
}

/**
 * CPU spent during one measurement, in clock ticks: the server process (every thread: the main one,
 * the garbage collector's helpers, libuv's pool), its main thread alone, and the whole machine
 * (database server and load generator included). Divided by the requests completed, they say where
 * a difference in throughput comes from when the main thread's own CPU does not.
 */
function watchCpu(pid) {
  const read = () => {
    try {
      return {
        process: statTicks(`/proc/${pid}/stat`),
        main: statTicks(`/proc/${pid}/task/${pid}/stat`),
        machine: machineBusyTicks(),
      };
    } catch {
      return undefined;
    }
  };
  const before = read();
  return () => {
    const after = read();
    if (!before || !after) return undefined;
    return {
      process: after.process - before.process,
      main: after.main - before.main,
      machine: after.machine - before.machine,
    };
  };
}

const TICKS_PER_SECOND = 100;

function perRequestMicros(ticks, requests) {
  const micros = (value) =>
    value === undefined ? undefined : Math.round(((value / TICKS_PER_SECOND) * 1e6) / requests);
  // The judged figure: the server process and the database server's processes (whose CPU during a
  // server's round is that server's: the rounds run one at a time).
  const judged = ticks.database === undefined ? ticks.process : ticks.process + ticks.database;
  return {
    process: micros(ticks.process),
    main: micros(ticks.main),
    machine: micros(ticks.machine),
    database: micros(ticks.database),
    client: micros(ticks.client),
    judged: micros(judged),
  };
}

// ---------------------------------------------------------------- memory of the database server

/** The parent of every process, from /proc/<pid>/stat (field 4, after the command's parentheses). */
function parents() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      out.set(Number(name), Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function childrenOf(pid) {
  return [...parents()].filter(([, parent]) => parent === pid).map(([child]) => child);
}

/** The roots and all their descendants. */
function treeOf(roots) {
  const all = parents();
  const members = new Set(roots.filter((pid) => all.has(pid)));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of all) {
      if (members.has(parent) && !members.has(pid)) {
        members.add(pid);
        grew = true;
      }
    }
  }
  return [...members];
}

function sumKb(pids, read) {
  let total = 0;
  for (const pid of pids) {
    try {
      total += read(pid);
    } catch {
      // a PostgreSQL backend that ended meanwhile
    }
  }
  return total;
}

const pssKb = (pid) => Number(/^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);

/**
 * Peak memory of the database server over one measurement: the sum of VmRSS over its process trees
 * (FerretDB, and PostgreSQL's postmaster with every backend it forked), sampled every 100 ms. The
 * trees are listed again every second, since PostgreSQL forks a backend per new connection; the
 * sum of PSS, which counts PostgreSQL's shared buffers once instead of once per backend that touched
 * them, is sampled then too. A sum cannot be reset like one process's VmHWM: it is sampled only.
 */
function watchTreeMemory(roots) {
  let members = treeOf(roots);
  let peakKb = sumKb(members, (pid) => procStatusKb(pid, 'VmRSS'));
  let peakPssKb = sumKb(members, pssKb);
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    if (ticks % 10 === 0) {
      members = treeOf(roots);
      peakPssKb = Math.max(peakPssKb, sumKb(members, pssKb));
    }
    peakKb = Math.max(
      peakKb,
      sumKb(members, (pid) => procStatusKb(pid, 'VmRSS')),
    );
  }, 100);
  return () => {
    clearInterval(timer);
    return { peakKb, peakPssKb, processes: members.length };
  };
}

/**
 * CPU of the database server's process trees over one measurement, in clock ticks: a process that
 * started meanwhile (a new PostgreSQL backend) counts whole, one that ended meanwhile is missed.
 */
function watchTreeCpu(roots) {
  const ticksOf = () => {
    const out = new Map();
    for (const pid of treeOf(roots)) {
      try {
        out.set(pid, statTicks(`/proc/${pid}/stat`));
      } catch {
        // ended meanwhile
      }
    }
    return out;
  };
  const before = ticksOf();
  return () => {
    let total = 0;
    for (const [pid, ticks] of ticksOf()) total += ticks - (before.get(pid) ?? 0);
    return total;
  };
}

/** CPU of this process (the load generator, and the webhook cost's receiver), in clock ticks. */
function watchOwnCpu() {
  const before = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(before);
    return ((used.user + used.system) / 1e6) * TICKS_PER_SECOND;
  };
}

/** The process's resident memory now, in kB. */
const rssKb = (pid) => procStatusKb(pid, 'VmRSS');

module.exports = {
  rssKb,
  watchMemory,
  watchCpu,
  perRequestMicros,
  childrenOf,
  watchTreeMemory,
  watchTreeCpu,
  watchOwnCpu,
};
