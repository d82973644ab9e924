import { Logger } from '@nestjs/common';
import { Types } from 'mongoose';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobRunner } from '../jobs/job-runner';
import type { Leases } from '../leases/leases.service';
import type { Asset } from './asset.schema';
import { AssetProcessor } from './asset-processor';
import type { AssetStorage } from './asset-storage';
import type { AssetsService, ProcessingOutcome } from './assets.service';

const TEXT = Buffer.from('plain words, no signature\n');

/** A store read as streams (as the S3 store is): `stall` makes every read one that never ends. */
class StreamStore {
  stall = true;
  readonly reads: Readable[] = [];
  constructor(private readonly bytes: Buffer) {}
  read(): Readable {
    // Not `Readable.from`: an object-mode stream answers a read of n bytes with a whole chunk.
    const stream = this.stall ? new PassThrough() : new PassThrough().end(this.bytes);
    this.reads.push(stream);
    return stream;
  }
  size(): Promise<number> {
    return Promise.resolve(this.bytes.length);
  }
}

/** The processor over one `processing` asset, a store that stalls, and a lease taken and released in memory. */
function setUp(bytes = TEXT) {
  const asset = {
    _id: new Types.ObjectId(),
    kind: 'text',
    mimeType: 'text/plain',
    size: bytes.length,
    declaredSha256: null,
  } as Asset;
  const id = String(asset._id);
  const store = new StreamStore(bytes);
  const settled: ProcessingOutcome[] = [];
  let stalledTries = 0;
  const service = {
    expireUploads: () => Promise.resolve(0),
    uploadsToProcess: () => Promise.resolve(settled.length ? [] : [{ _id: asset._id }]),
    processing: () => Promise.resolve(settled.length ? null : asset),
    takeUpProcessing: () => Promise.resolve(true),
    countStalledTry: () => Promise.resolve(++stalledTries),
    settle: (_id: string, outcome: ProcessingOutcome, _fence: number) => {
      settled.push(outcome);
      return Promise.resolve();
    },
  };
  const held = new Set<string>();
  const leases = {
    tryWithFencedLease: async (
      key: string,
      _ms: number,
      work: (hold: { fence: number; lost: boolean }) => Promise<unknown>,
    ) => {
      if (held.has(key)) return undefined;
      held.add(key);
      try {
        return await work({ fence: 1, lost: false });
      } finally {
        held.delete(key);
      }
    },
  };
  const config = {
    sweepIntervalMs: 60_000,
    processingLeaseMs: 600_000,
    processingDeadline: { baseMs: 100, bytesPerSecond: 1024 * 1024, tries: 3 },
  };
  const processor = new AssetProcessor(
    service as unknown as AssetsService,
    store as unknown as AssetStorage,
    leases as unknown as Leases,
    config as never,
    {} as JobRunner,
  );
  return { id, asset, store, settled, held, processor, tries: () => stalledTries };
}

/** Runs one processing step as the job runner does. */
async function round(processor: AssetProcessor): Promise<void> {
  await processor.processUploads({ stopping: () => false });
}

describe('AssetProcessor under its deadline', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  it('destroys the reads of a try that stalls, warns and releases the lease, so the asset is tried again', async () => {
    const { id, store, settled, held, processor, tries } = setUp();
    await round(processor);
    expect(settled).toEqual([]);
    expect(tries()).toBe(1);
    expect(held.size).toBe(0);
    expect(store.reads.length).toBeGreaterThan(0);
    expect(store.reads.every((stream) => stream.destroyed)).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining(`Processing asset ${id} did not finish within 101 ms (try 1 of 3)`),
    );

    // The next try, its store no longer stalling, settles the asset.
    store.stall = false;
    await round(processor);
    expect(settled).toEqual([{ ready: expect.objectContaining({ contentType: 'text/plain', error: null }) }]);
    expect(tries()).toBe(1);
  });

  it('ends the asset errored after three tries that stalled', async () => {
    const { store, settled, held, processor, tries } = setUp();
    await round(processor);
    await round(processor);
    expect(settled).toEqual([]);
    await round(processor);
    expect(tries()).toBe(3);
    expect(settled).toEqual([
      { error: { code: 'unreadable', message: 'Processing did not finish within 0 s in 3 tries' } },
    ]);
    expect(held.size).toBe(0);
    expect(store.reads.every((stream) => stream.destroyed)).toBe(true);
  });

  it('scales the deadline with the size: 1 MiB more is a second more', async () => {
    const { store, settled, processor, tries } = setUp(Buffer.alloc(1024 * 1024, 'a'));
    store.stall = false;
    const prompt = store.read.bind(store);
    // Each read starts later than the base deadline, well within the second the size adds.
    store.read = () => {
      const stream = new PassThrough();
      void sleep(300).then(() => prompt().pipe(stream));
      return stream;
    };
    await round(processor);
    expect(tries()).toBe(0);
    expect(settled).toEqual([{ ready: expect.objectContaining({ contentType: 'text/plain' }) }]);
  });
});
