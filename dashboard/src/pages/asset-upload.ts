import { useQueryClient } from '@tanstack/react-query';
import { defaultOptions, DetailedError, Upload, type PreviousUpload } from 'tus-js-client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, asApiError, call, idempotencyKey, type Schemas } from '../api/client';

type AssetKind = Schemas['CreateAssetDto']['kind'];

/**
 * Bytes per `PATCH`: a proxy's body limit never meets a whole large file, and a lost connection
 * costs at most one chunk's worth of progress shown.
 */
const CHUNK_BYTES = 8 * 1024 * 1024;

export interface AssetUploadState {
  /**
   * `preparing`: the asset is being created, or the previous upload of the file looked up;
   * `resuming`: an upload goes on from where it stopped, until its first bytes are acknowledged;
   * `done`: every byte is with the service, which processes the file next.
   */
  phase: 'preparing' | 'resuming' | 'uploading' | 'paused' | 'done' | 'failed';
  fileName: string;
  /** The asset the bytes go to, once created or found. */
  assetId?: string;
  sent: number;
  total: number;
  /** Whether this continues an upload started before (in an earlier visit of the page, or before a reload). */
  resumed: boolean;
  error?: string;
}

/** The asset kind a file's type makes it; undefined for a type no asset holds. */
export function assetKindOf(mimeType: string): AssetKind | undefined {
  const family = mimeType.split('/')[0];
  return family === 'image' || family === 'audio' || family === 'video' || family === 'text' ? family : undefined;
}

/** The title a new asset gets: its file name without the extension. */
function titleOf(fileName: string): string {
  const bare = fileName.replace(/\.[^.]*$/, '').trim();
  return (bare || fileName).slice(0, 200);
}

/**
 * Where the browser may pick up an upload again. What it keeps (tus-js-client's URL storage, in
 * `localStorage`) is the asset's upload address with the API's credentials, `/assets/{id}/upload`,
 * which lets nobody in without the signed-in user's own session. The one-time upload URL the API
 * answers at creation is itself a bearer secret valid for a day: it is never used nor kept here, so
 * nothing in the browser's storage outlives the user's session as a key to the upload. The entry
 * goes once the upload is finished, and when the asset it names no longer takes bytes.
 */
function uploadAddress(assetId: string): string {
  return `${window.location.origin}/assets/${assetId}/upload`;
}
const UPLOAD_ADDRESS = /\/assets\/([0-9a-f]{24})\/upload$/i;

/** One file's upload in this content project; its key does not hold the address, which differs per asset. */
function fingerprintOf(file: File, platformProjectId: string | null, contentProjectId: string): string {
  return [
    'platform-asset',
    platformProjectId ?? 'default',
    contentProjectId,
    file.name,
    file.type,
    file.size,
    file.lastModified,
  ].join('/');
}

/** What a refused or failed tus request says: the API's JSON message, the tus server's text, or the lost connection. */
function uploadErrorMessage(error: Error): string {
  if (error instanceof DetailedError) {
    const response = error.originalResponse;
    if (!response || response.getStatus() === 0)
      return 'The service could not be reached: Resume once the connection is back.';
    const body = response.getBody()?.trim() ?? '';
    try {
      const parsed: unknown = JSON.parse(body);
      const message =
        typeof parsed === 'object' && parsed !== null ? (parsed as { message?: unknown }).message : undefined;
      if (typeof message === 'string') return message;
      if (Array.isArray(message)) return message.join('; ');
    } catch {
      // Not JSON: the tus server's own plain-text answer.
    }
    return body || `The upload was refused (${response.getStatus()})`;
  }
  return error.message;
}

/** A message as a person reads it: the service's setting names (`(ASSET_MAX_BYTES)`) left out, a full stop at its end. */
export function readable(message: string): string {
  const text = message.replace(/\s*\([A-Z][A-Z0-9_]{2,}\)/g, '').trim();
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/**
 * The upload of one file into a content project: the asset created through the API (its kind and
 * type from the file), then its bytes sent with tus (tus-js-client), with pause and resume. A file
 * whose earlier upload did not finish (a reload, a closed tab) continues from the offset the
 * service holds instead of starting a new asset.
 */
export function useAssetUpload(contentProjectId: string, platformProjectId: string | null) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<AssetUploadState>();
  const current = useRef<Upload | undefined>(undefined);
  // Read at each request, so a long upload goes on in the project of the moment. The session's
  // cookie goes with these same-origin requests by itself.
  const credentials = useRef({ projectId: platformProjectId });
  credentials.current = { projectId: platformProjectId };

  // Leaving the page pauses the upload: it is kept resumable.
  useEffect(
    () => () => {
      void current.current?.abort();
    },
    [],
  );

  const refreshAssets = useCallback(
    () =>
      queryClient.invalidateQueries({
        predicate: (query) =>
          typeof query.queryKey[1] === 'string' &&
          ['/projects/{projectId}/assets', '/assets/{assetId}'].includes(query.queryKey[1]),
      }),
    [queryClient],
  );

  const update = useCallback(
    (change: Partial<AssetUploadState>) => setState((before) => (before ? { ...before, ...change } : before)),
    [],
  );

  /** The newest earlier upload of this file that its asset still takes; stale entries are dropped. */
  const previousUpload = useCallback(
    async (upload: Upload, file: File): Promise<PreviousUpload | undefined> => {
      const previous = (await upload.findPreviousUploads()).sort((a, b) =>
        b.creationTime.localeCompare(a.creationTime),
      );
      for (const candidate of previous) {
        const assetId = UPLOAD_ADDRESS.exec(candidate.uploadUrl ?? '')?.[1];
        // Only a 404 (the asset was deleted) forgets the entry; a lost connection fails the pick instead.
        const asset = assetId
          ? await call(api.GET('/assets/{assetId}', { params: { path: { assetId } } })).catch((error: unknown) => {
              if (asApiError(error).status === 404) return undefined;
              throw error;
            })
          : undefined;
        if (asset && asset.status === 'uploading' && asset.size === file.size && asset.projectId === contentProjectId)
          return candidate;
        await defaultOptions.urlStorage.removeUpload(candidate.urlStorageKey);
      }
      return undefined;
    },
    [contentProjectId],
  );

  const start = useCallback(
    async (file: File) => {
      const kind = assetKindOf(file.type);
      if (!kind) {
        setState({
          phase: 'failed',
          fileName: file.name,
          sent: 0,
          total: file.size,
          resumed: false,
          error: `${file.name} is not a video, audio, image or text file (its type is ${file.type || 'unknown'}): pick one of those.`,
        });
        return;
      }
      void current.current?.abort();
      setState({ phase: 'preparing', fileName: file.name, sent: 0, total: file.size, resumed: false });
      const upload = new Upload(file, {
        fingerprint: () => Promise.resolve(fingerprintOf(file, credentials.current.projectId, contentProjectId)),
        chunkSize: CHUNK_BYTES,
        retryDelays: [0, 1000, 3000, 5000],
        storeFingerprintForResuming: true,
        removeFingerprintOnSuccess: true,
        onBeforeRequest: (request) => {
          const { projectId } = credentials.current;
          if (projectId) request.setHeader('X-Project-Id', projectId);
        },
        // The asset is `uploading` from here: the list says so without waiting for its next read.
        onUploadUrlAvailable: () => void refreshAssets(),
        // The first bytes acknowledged after a resume: the upload runs again.
        onProgress: (sent, total) =>
          setState((before) =>
            before
              ? { ...before, sent, total, phase: before.phase === 'resuming' ? 'uploading' : before.phase }
              : before,
          ),
        onSuccess: () => {
          update({ phase: 'done', sent: file.size });
          void refreshAssets();
        },
        onError: (error) => {
          // A lost connection (after tus-js-client's own retries) leaves the upload resumable.
          const lost =
            error instanceof DetailedError && (!error.originalResponse || error.originalResponse.getStatus() === 0);
          update({ phase: lost ? 'paused' : 'failed', error: readable(uploadErrorMessage(error)) });
          void refreshAssets();
        },
      });
      current.current = upload;
      try {
        const previous = await previousUpload(upload, file);
        let assetId: string | undefined;
        if (previous?.uploadUrl) {
          upload.resumeFromPreviousUpload(previous);
          upload.options.endpoint = previous.uploadUrl;
          assetId = UPLOAD_ADDRESS.exec(previous.uploadUrl)?.[1];
        } else {
          const created = await call(
            api.POST('/projects/{projectId}/assets', {
              params: { path: { projectId: contentProjectId }, header: { 'Idempotency-Key': idempotencyKey() } },
              body: { kind, title: titleOf(file.name), fileName: file.name, size: file.size, mimeType: file.type },
            }),
          );
          upload.options.endpoint = uploadAddress(created.asset.id);
          assetId = created.asset.id;
          void refreshAssets();
        }
        // Another file was picked meanwhile: the state is that one's now.
        if (current.current !== upload) return;
        update(previous?.uploadUrl ? { assetId, resumed: true, phase: 'resuming' } : { assetId, phase: 'uploading' });
        upload.start();
      } catch (error) {
        if (current.current === upload) update({ phase: 'failed', error: readable(asApiError(error).message) });
      }
    },
    [contentProjectId, previousUpload, refreshAssets, update],
  );

  const pause = useCallback(() => {
    void current.current?.abort();
    update({ phase: 'paused' });
  }, [update]);

  const resume = useCallback(() => {
    if (!current.current) return;
    update({ phase: 'resuming', resumed: true, error: undefined });
    current.current.start();
  }, [update]);

  return { state, start: (file: File) => void start(file), pause, resume };
}
