import { Types } from 'mongoose';
import type { Asset, AssetStatus } from './asset.schema';
import { AssetsService } from './assets.service';

/** `processing` over a ticket marked `processing` and its asset in `status`: what it answers and whether the ticket stays. */
async function processingOf(status: AssetStatus | null) {
  const id = new Types.ObjectId();
  const closed: string[] = [];
  const removed: string[] = [];
  const repository = {
    findUpload: () => Promise.resolve({ _id: id, accountId: 'account', projectId: new Types.ObjectId(), stage: 'processing' }),
    findById: () => Promise.resolve(status ? ({ _id: id, status } as Asset) : null),
    closeUpload: (assetId: string) => {
      closed.push(assetId);
      return Promise.resolve();
    },
  };
  const storage = {
    remove: (assetId: string) => {
      removed.push(assetId);
      return Promise.resolve();
    },
  };
  const service = new AssetsService(repository as never, storage as never, {} as never, {} as never, {} as never);
  const asset = await service.processing(String(id));
  return { asset, ticketClosed: closed.includes(String(id)), bytesRemoved: removed.includes(String(id)) };
}

describe('AssetsService.processing', () => {
  it('answers a processing asset, its ticket kept', async () => {
    expect(await processingOf('processing')).toEqual({ asset: expect.objectContaining({ status: 'processing' }), ticketClosed: false, bytesRemoved: false });
  });

  // The upload's finish marks the ticket, then moves the asset: a sweep between the two must leave
  // the ticket, or the asset ends `processing` with nothing left to process it.
  it('leaves the ticket of an asset the upload\'s finish has not moved yet', async () => {
    expect(await processingOf('uploading')).toEqual({ asset: null, ticketClosed: false, bytesRemoved: false });
  });

  it.each(['ready', 'errored'] as const)('closes the ticket of an asset already %s', async (status) => {
    expect(await processingOf(status)).toEqual({ asset: null, ticketClosed: true, bytesRemoved: false });
  });

  it('removes the bytes and the ticket of an asset deleted meanwhile', async () => {
    expect(await processingOf(null)).toEqual({ asset: null, ticketClosed: true, bytesRemoved: true });
  });
});
