// One-shot replica-set initiation for docker-compose.yml, run by the `mongo-init` service with
//   mongosh --host mongo1:27017 --file /deploy/mongo/init-replica-set.js
// Idempotent: on a set that already exists it only waits for a primary. Exits non-zero when no
// primary is elected in time, so the services that depend on it do not start.
const members = [
  { _id: 0, host: 'mongo1:27017', priority: 2 },
  { _id: 1, host: 'mongo2:27017', priority: 1 },
  { _id: 2, host: 'mongo3:27017', priority: 1 },
];

function status() {
  try {
    return db.adminCommand({ replSetGetStatus: 1 });
  } catch (error) {
    return { ok: 0, codeName: error.codeName, errmsg: error.message };
  }
}

let current = status();
if (current.ok !== 1 && current.codeName === 'NotYetInitialized') {
  print('rs0: not initiated yet; initiating with ' + members.map((member) => member.host).join(', '));
  const result = db.adminCommand({ replSetInitiate: { _id: 'rs0', members } });
  if (result.ok !== 1) {
    print('rs0: replSetInitiate failed: ' + JSON.stringify(result));
    quit(1);
  }
} else if (current.ok === 1) {
  print('rs0: already initiated');
} else {
  print('rs0: cannot read the replica-set status: ' + JSON.stringify(current));
  quit(1);
}

const deadline = Date.now() + 120_000;
for (;;) {
  current = status();
  const primary = current.ok === 1 ? current.members.find((member) => member.stateStr === 'PRIMARY') : undefined;
  if (primary) {
    print('rs0: primary is ' + primary.name + '; members: ' + current.members.map((m) => m.name + ' ' + m.stateStr).join(', '));
    break;
  }
  if (Date.now() > deadline) {
    print('rs0: no primary after 120 s: ' + JSON.stringify(current));
    quit(1);
  }
  sleep(1000);
}
