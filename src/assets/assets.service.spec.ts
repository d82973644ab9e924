import { Logger } from '@nestjs/common';
import { Types } from 'mongoose';
import type { Asset, AssetStatus } from './asset.schema';
import { AssetsService } from './assets.service';

const GRACE_MS = 60_000;

interface Ticket {
  /** When the ticket became `processing`; undefined for a ticket written before the time was kept. */
  processingSince?: Date | null;
  /** What the store holds of the upload: its offset, or null for no upload. */
  storedOffset?: number | null;
}

/** `processing` over a ticket marked `processing` and its asset in `status`: what it answers and what it did. */
async function processingOf(status: AssetStatus | null, ticket: Ticket = { processingSince: new Date() }) {
  const id = new Types.ObjectId();
  const size = 1000;
  const closed: string[] = [];
  const reopened: string[] = [];
  const removed: string[] = [];
  const moves: { from: readonly AssetStatus[]; to: AssetStatus; event?: string }[] = [];
  let current = status;
  const repository = {
    findUpload: () =>
      Promise.resolve({
        _id: id,
        accountId: 'account',
        projectId: new Types.ObjectId(),
        stage: 'processing',
        ...ticket,
      }),
    findById: () => Promise.resolve(current ? ({ _id: id, status: current, size } as Asset) : null),
    closeUpload: (assetId: string) => {
      closed.push(assetId);
      return Promise.resolve();
    },
    reopenUpload: (assetId: string) => {
      reopened.push(assetId);
      return Promise.resolve();
    },
    moveStatus: (
      _scope: unknown,
      _id: string,
      from: readonly AssetStatus[],
      to: AssetStatus,
      _set: unknown,
      event?: string,
    ) => {
      moves.push({ from, to, event });
      if (!current || !from.includes(current)) return Promise.resolve(null);
      current = to;
      return Promise.resolve({ _id: id, status: to, size } as Asset);
    },
  };
  const storedOffset = ticket.storedOffset === undefined ? size : ticket.storedOffset;
  const storage = {
    remove: (assetId: string) => {
      removed.push(assetId);
      return Promise.resolve();
    },
    uploadProgress: () => Promise.resolve(storedOffset === null ? null : { offset: storedOffset, size }),
  };
  const config = { processingGraceMs: GRACE_MS };
  const service = new AssetsService(
    repository as never,
    storage as never,
    {} as never,
    {} as never,
    config as never,
    {} as never,
  );
  const asset = await service.processing(String(id));
  return {
    asset,
    ticketClosed: closed.includes(String(id)),
    ticketReopened: reopened.includes(String(id)),
    bytesRemoved: removed.includes(String(id)),
    moves,
  };
}

const longAgo = () => new Date(Date.now() - GRACE_MS - 1);

describe('AssetsService.processing', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warn.mockRestore());

  it('answers a processing asset, its ticket kept', async () => {
    expect(await processingOf('processing')).toMatchObject({
      asset: expect.objectContaining({ status: 'processing' }),
      ticketClosed: false,
      ticketReopened: false,
      bytesRemoved: false,
      moves: [],
    });
  });

  // The upload's finish marks the ticket, then moves the asset: a sweep between the two must leave
  // the ticket, or the asset ends `processing` with nothing left to process it.
  it('leaves the ticket and the asset of an upload whose finish is within its grace', async () => {
    expect(await processingOf('uploading', { processingSince: new Date(Date.now() - GRACE_MS + 5_000) })).toMatchObject(
      {
        asset: null,
        ticketClosed: false,
        ticketReopened: false,
        bytesRemoved: false,
        moves: [],
      },
    );
  });

  it('moves on an asset whose finish stopped before moving it, once the grace has passed: processing, recorded as asset.uploaded', async () => {
    const result = await processingOf('uploading', { processingSince: longAgo() });
    expect(result).toMatchObject({
      asset: expect.objectContaining({ status: 'processing' }),
      ticketClosed: false,
      ticketReopened: false,
      bytesRemoved: false,
    });
    expect(result.moves).toEqual([{ from: ['uploading'], to: 'processing', event: 'asset.uploaded' }]);
  });

  it('reads a ticket without the time as past its grace', async () => {
    const result = await processingOf('uploading', {});
    expect(result.asset).toMatchObject({ status: 'processing' });
    expect(result.moves).toEqual([{ from: ['uploading'], to: 'processing', event: 'asset.uploaded' }]);
  });

  it.each([
    ['part of the bytes', 400],
    ['no upload', null],
  ])('opens the ticket again, the asset left uploading, when the store holds %s', async (_what, storedOffset) => {
    expect(await processingOf('uploading', { processingSince: longAgo(), storedOffset })).toMatchObject({
      asset: null,
      ticketClosed: false,
      ticketReopened: true,
      bytesRemoved: false,
      moves: [],
    });
  });

  it('opens the ticket again of an asset waiting for a new upload', async () => {
    expect(await processingOf('waiting', { processingSince: longAgo() })).toMatchObject({
      asset: null,
      ticketReopened: true,
      moves: [],
    });
  });

  it.each(['ready', 'errored'] as const)('closes the ticket of an asset already %s', async (status) => {
    expect(await processingOf(status)).toMatchObject({
      asset: null,
      ticketClosed: true,
      ticketReopened: false,
      bytesRemoved: false,
      moves: [],
    });
  });

  it('removes the bytes and the ticket of an asset deleted meanwhile', async () => {
    expect(await processingOf(null)).toMatchObject({ asset: null, ticketClosed: true, bytesRemoved: true });
  });
});
