import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, ObjectId } from 'mongodb';
import { OCTETS, pathOf, settledAsset, slowPatch, TUS } from '../support/assets';
import { createFirstAdmin, type TestUser } from '../support/auth';
import { createContentProject } from '../support/content';
import { pollUntil } from '../support/deadline';
import { HttpClient, type HttpResponse } from '../support/http';
import { startS3Server, type S3Server } from '../support/s3-server';
import { ServiceProcess, spawnBuiltService } from '../support/service-process';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';
import {
  createTestApp,
  TEST_CARD_FINGERPRINT_KEY,
  TEST_FIELD_ENCRYPTION_KEY,
  TEST_JWT_SECRET,
  type TestApp,
} from '../support/test-app';

jest.setTimeout(600_000);

const TEXT = Buffer.from('Liner notes of one track, long enough to be a file of its own.\n');
const ASSETS = 13;
/** Room for the tree's assets and one more of them: an asset the size of the whole quota fits only once they are gone. */
const QUOTA = (ASSETS + 1) * TEXT.length;

function ok(res: HttpResponse, status = 200): HttpResponse {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** The tree of the delete: a root, 3 children, 9 grandchildren, 27 at depth 4 (40 projects); which hold assets, links and a grant. */
interface Tree {
  root: string;
  levels: string[][];
  assets: string[];
  signedUrls: string[];
  links: string[];
  grants: string[];
}

/**
 * A cascade is recorded before anything of it goes, and finished after a crash: the built service
 * is killed (SIGKILL) in the middle of deleting a 40-project tree with 13 ready assets, started
 * again, and either the delete is retried or the new process finishes it by itself. Then nothing
 * of the tree is left: no project, asset record, file or object, share link or grant; each asset's
 * bytes answer 404; the quota counts none of it; and each deleted record has one event.
 */
describe('a cascade delete, finished after the service is killed', () => {
  const mongodbUri = testDatabaseUri(`cascade_kill_${randomBytes(6).toString('hex')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'cascade-kill-'));
  let service: ServiceProcess | undefined;
  let client: MongoClient;
  let s3: S3Server | undefined;

  beforeAll(async () => {
    client = await new MongoClient(mongodbUri).connect();
  });

  // A test that failed leaves its process running: it would work on the next test's records.
  afterEach(() => kill());

  afterAll(async () => {
    await client.close();
    await dropTestDatabase(mongodbUri);
    await s3?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const db = () => client.db();

  async function kill(): Promise<void> {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }

  function s3Env(): Record<string, string> {
    if (!s3) return {};
    return {
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    };
  }

  async function start(): Promise<HttpClient> {
    service = await spawnBuiltService({
      NODE_ENV: 'test',
      MONGODB_URI: mongodbUri,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
      BCRYPT_ROUNDS: '4',
      LOGIN_MAX_FAILURES_PER_CLIENT: '100000',
      SIGNUP_MAX_PER_CLIENT: '100000',
      RATE_LIMIT_PER_SECOND: '100000',
      ASSET_CONCURRENT_DOWNLOADS: '1000',
      PROJECT_STORAGE_BYTES: String(QUOTA),
      LOG_LEVEL: 'silent',
      ...s3Env(),
    });
    const http = new HttpClient(service.baseUrl);
    const running = service;
    if (
      !(await pollUntil(async () => (await http.get('/health').catch(() => ({ status: 0 }))).status === 200, 60_000))
    ) {
      throw new Error(`not healthy within 60 s:\n${running.output()}`);
    }
    return http;
  }

  /** A top-level channel of its own, in the owner's platform project. */
  async function channelOf(http: HttpClient, owner: TestUser): Promise<string> {
    const suffix = randomBytes(5).toString('hex');
    const clientId = ok(
      await http.post('/clients', { name: 'Label', email: `label-${suffix}@example.com` }, { token: owner.token }),
      201,
    ).body.id;
    const body = {
      clientId,
      name: 'Catalogue',
      username: `catalogue_${suffix}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    return ok(await http.post('/channels', body, { token: owner.token })).body.id;
  }

  async function readyAsset(http: HttpClient, owner: TestUser, projectId: string): Promise<string> {
    const body = { kind: 'text', title: 'Notes', fileName: 'notes.txt', size: TEXT.length, mimeType: 'text/plain' };
    const created = ok(await http.post(`/projects/${projectId}/assets`, body, { token: owner.token }), 201).body;
    const url = pathOf(created.upload.url);
    ok(await http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(TEXT.length) } }), 201);
    ok(
      await http.request('PATCH', url, undefined, { raw: TEXT, headers: { ...TUS, ...OCTETS, 'upload-offset': '0' } }),
      204,
    );
    const settled = await settledAsset(http, created.asset.id, owner.token, 60_000);
    expect({ status: settled.status, error: settled.error }).toEqual({ status: 'ready', error: null });
    return created.asset.id;
  }

  async function buildTree(http: HttpClient, owner: TestUser, granted: TestUser, channel: string): Promise<Tree> {
    const as = { token: owner.token };
    const project = async (parentId?: string) =>
      ok(
        await http.post(
          `/channels/${channel}/projects`,
          { primaryTitle: 'Part', projectTypeId: 'album', ...(parentId ? { parentId } : {}) },
          as,
        ),
        201,
      ).body._id as string;
    const root = await project();
    const levels: string[][] = [[root]];
    for (let depth = 1; depth < 4; depth++) {
      const next: string[] = [];
      for (const parent of levels[depth - 1]) for (let i = 0; i < 3; i++) next.push(await project(parent));
      levels.push(next);
    }
    expect(levels.flat()).toHaveLength(40);
    // The root, each child, and one leaf under each grandchild: 13 ready assets, at every depth.
    const holders = [root, ...levels[1], ...levels[2].map((_, i) => levels[3][i * 3])];
    const assets: string[] = [];
    for (const holder of holders) assets.push(await readyAsset(http, owner, holder));
    expect(assets).toHaveLength(ASSETS);
    const signedUrls: string[] = [];
    for (const id of assets) signedUrls.push(pathOf(ok(await http.get(`/assets/${id}/content-url`, as)).body.url));
    const leaf = levels[3][26];
    const links = [
      ok(await http.post(`/projects/${leaf}/share-links`, {}, as), 201).body.id,
      ok(await http.post(`/projects/${root}/share-links`, {}, as), 201).body.id,
    ];
    const grants = [
      ok(await http.post(`/projects/${levels[2][4]}/grants`, { userId: granted.id, role: 'viewer' }, as), 201).body.id,
    ];
    return { root, levels, assets, signedUrls, links, grants };
  }

  /** Every stored file or object whose name holds one of the ids: the disk under DATA_DIR and, on the S3 store, the bucket. */
  async function storedOf(ids: readonly string[]): Promise<string[]> {
    const named = (name: string) => ids.some((id) => name.includes(id));
    const folder = join(dataDir, 'assets');
    const files = existsSync(folder) ? (readdirSync(folder, { recursive: true }) as string[]).filter(named) : [];
    if (!s3) return files;
    const bucket = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const objects = (await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? [];
      const uploads = (await bucket.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))).Uploads ?? [];
      return [
        ...files,
        ...objects.map((object) => object.Key!).filter(named),
        ...uploads.map((upload) => `multipart ${upload.Key!}`).filter(named),
      ];
    } finally {
      bucket.destroy();
    }
  }

  const objectIds = (ids: readonly string[]) => ids.map((id) => new ObjectId(id));

  /** How many stored `type` events each id has (the id of the event's object: a child's event names its parent too). */
  async function eventsOf(type: string, ids: readonly string[]): Promise<number[]> {
    const events = await db().collection('events').find({ type }).toArray();
    const objectId = (body: unknown) => {
      const object = (typeof body === 'string' ? JSON.parse(body) : body) as {
        data: { object: { _id?: string; id?: string } };
      };
      return object.data.object._id ?? object.data.object.id;
    };
    const named = events.map((event) => objectId(event.body));
    return ids.map((id) => named.filter((one) => one === id).length);
  }

  /** Starts the cascade and kills the service (SIGKILL) once `stopWhen` holds; the request itself gets no answer. */
  async function killDuring(
    http: HttpClient,
    owner: TestUser,
    tree: Tree,
    stopWhen: () => Promise<boolean>,
  ): Promise<void> {
    const deleting = http.delete(`/projects/${tree.root}?cascade=true`, { token: owner.token }).catch(() => null);
    const seen = await pollUntil(stopWhen, 120_000, 2);
    service!.child.kill('SIGKILL');
    await service!.exited;
    expect(seen).toBe(true);
    await deleting;
  }

  /** What is left once the cascade is finished: nothing of the tree, anywhere, and each delete recorded once. */
  async function expectNothingLeft(http: HttpClient, owner: TestUser, tree: Tree, otherProject: string): Promise<void> {
    const projects = tree.levels.flat();
    expect(
      await db()
        .collection('projects')
        .countDocuments({ _id: { $in: objectIds(projects) } }),
    ).toBe(0);
    expect(
      await db()
        .collection('assets')
        .countDocuments({ _id: { $in: objectIds(tree.assets) } }),
    ).toBe(0);
    expect(
      await db()
        .collection('asset_uploads')
        .countDocuments({ _id: { $in: objectIds(tree.assets) } }),
    ).toBe(0);
    expect(await storedOf(tree.assets)).toEqual([]);
    for (const [i, id] of tree.assets.entries()) {
      expect((await http.get(`/assets/${id}/content`, { token: owner.token })).status).toBe(404);
      expect((await http.get(tree.signedUrls[i])).status).toBe(404);
    }
    expect(
      await db()
        .collection('share_links')
        .countDocuments({ _id: { $in: objectIds(tree.links) } }),
    ).toBe(0);
    expect(
      await db()
        .collection('grants')
        .countDocuments({ _id: { $in: objectIds(tree.grants) } }),
    ).toBe(0);
    expect(await db().collection('project_deletions').countDocuments({})).toBe(0);
    // The quota counts none of the tree's bytes any more: an asset of the whole quota fits.
    const whole = { kind: 'text', title: 'All of it', fileName: 'all.txt', size: QUOTA, mimeType: 'text/plain' };
    ok(await http.post(`/projects/${otherProject}/assets`, whole, { token: owner.token }), 201);
    // One event per deleted record, the ones the killed process recorded included (the events sweep settles those).
    const complete = async () =>
      (await eventsOf('project.deleted', projects)).every((n) => n >= 1) &&
      (await eventsOf('asset.deleted', tree.assets)).every((n) => n >= 1);
    expect(await pollUntil(complete, 90_000, 1_000)).toBe(true);
    expect(await eventsOf('project.deleted', projects)).toEqual(projects.map(() => 1));
    expect(await eventsOf('asset.deleted', tree.assets)).toEqual(tree.assets.map(() => 1));
    expect(await eventsOf('share_link.deleted', tree.links)).toEqual(tree.links.map(() => 1));
    expect(await eventsOf('grant.deleted', tree.grants)).toEqual(tree.grants.map(() => 1));
  }

  /** A tree, checked to be stored and counted before its delete, with a project outside it. */
  async function prepare(http: HttpClient): Promise<{ owner: TestUser; tree: Tree; other: string }> {
    const owner = await createFirstAdmin(http);
    const granted = await createFirstAdmin(http);
    const channel = await channelOf(http, owner);
    const tree = await buildTree(http, owner, granted, channel);
    const other = ok(
      await http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: 'Elsewhere', projectTypeId: 'show' },
        { token: owner.token },
      ),
      201,
    ).body._id;
    // Before: the bytes are stored and served, and they fill the quota.
    expect((await storedOf(tree.assets)).length).toBeGreaterThanOrEqual(ASSETS);
    expect((await http.get(`/assets/${tree.assets[0]}/content`, { token: owner.token })).status).toBe(200);
    const whole = { kind: 'text', title: 'All of it', fileName: 'all.txt', size: QUOTA, mimeType: 'text/plain' };
    expect((await http.post(`/projects/${other}/assets`, whole, { token: owner.token })).status).toBe(413);
    return { owner, tree, other };
  }

  it('killed once the first depth-4 project is gone, then retried: the retry answers 200 and nothing of the tree is left', async () => {
    let http = await start();
    const { owner, tree, other } = await prepare(http);
    const leaves = objectIds(tree.levels[3]);
    await killDuring(
      http,
      owner,
      tree,
      async () =>
        (await db()
          .collection('projects')
          .countDocuments({ _id: { $in: leaves } })) < leaves.length,
    );

    http = await start();
    const retried = await http.delete(`/projects/${tree.root}?cascade=true`, { token: owner.token });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ message: 'Project deleted' });
    await expectNothingLeft(http, owner, tree, other);
    await kill();
  });

  it('on the S3 store, killed once the first asset record is gone, not retried: the next process finishes the cascade by itself', async () => {
    s3 = await startS3Server();
    let http = await start();
    const { owner, tree, other } = await prepare(http);
    const assets = objectIds(tree.assets);
    await killDuring(
      http,
      owner,
      tree,
      async () =>
        (await db()
          .collection('assets')
          .countDocuments({ _id: { $in: assets } })) < assets.length,
    );
    // Killed half-way: some of the tree's assets are still stored, as records or bytes.
    const recordsLeft = await db()
      .collection('assets')
      .countDocuments({ _id: { $in: assets } });
    expect(recordsLeft + (await storedOf(tree.assets)).length).toBeGreaterThan(0);

    http = await start();
    const projects = objectIds(tree.levels.flat());
    const finished = async () =>
      (await db()
        .collection('projects')
        .countDocuments({ _id: { $in: projects } })) === 0 &&
      (await db().collection('project_deletions').countDocuments({})) === 0;
    expect(await pollUntil(finished, 120_000, 500)).toBe(true);
    await expectNothingLeft(http, owner, tree, other);
    expect((await http.delete(`/projects/${tree.root}?cascade=true`, { token: owner.token })).status).toBe(404);
    await kill();
  });
});

/**
 * An asset deleted while a `PATCH` of its upload is still sending bytes: the delete takes the
 * upload's lock, so it waits for the PATCH to end, then removes every object of it, the `.part`
 * tail the PATCH left included.
 */
describe('an asset deleted during a running PATCH (S3 store)', () => {
  let s3: S3Server;
  let t: TestApp;
  let owner: TestUser;
  const MiB = 1024 * 1024;

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await createTestApp({
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    });
    owner = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  async function keysOf(id: string): Promise<string[]> {
    const bucket = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const objects = (await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? [];
      const uploads = (await bucket.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }))).Uploads ?? [];
      return [...objects.map((object) => object.Key!), ...uploads.map((upload) => `multipart ${upload.Key!}`)]
        .filter((key) => key.includes(id))
        .sort();
    } finally {
      bucket.destroy();
    }
  }

  it('waits for the PATCH, then leaves no object of the upload (no .part), no record and no ticket', async () => {
    const projectId = await createContentProject(t.http, owner.token);
    const size = 2 * MiB;
    const created = ok(
      await t.http.post(
        `/projects/${projectId}/assets`,
        { kind: 'text', title: 'Long', fileName: 'long.txt', size, mimeType: 'text/plain' },
        { token: owner.token },
      ),
      201,
    ).body;
    const id = created.asset.id as string;
    const url = pathOf(created.upload.url);
    ok(await t.http.post(url, undefined, { headers: { ...TUS, 'upload-length': String(size) } }), 201);

    // Half the asset, shorter than a multipart part: the store keeps what it received as `<id>.part`.
    const patch = slowPatch(t.http, url, Buffer.alloc(MiB, 'a'), 256 * 1024, 3_000);
    // A connection cut by the delete is as good as an answer here.
    const patched = patch.status.catch(() => 0);
    await patch.started;
    await new Promise((done) => setTimeout(done, 500));
    const deleted = await t.http.delete(`/assets/${id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    await patched;
    // Whatever the PATCH wrote, it wrote before the delete removed the upload.
    await new Promise((done) => setTimeout(done, 1_000));
    expect(await keysOf(id)).toEqual([]);
    expect(await t.db.collection('assets').countDocuments({ _id: new ObjectId(id) })).toBe(0);
    expect(await t.db.collection('asset_uploads').countDocuments({ _id: new ObjectId(id) })).toBe(0);
    expect(await t.db.collection('asset_deletions').countDocuments({ _id: new ObjectId(id) })).toBe(0);
    expect((await t.http.get(`/assets/${id}`, { token: owner.token })).status).toBe(404);
  });
});
