import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useEffect, useId, useState, type ChangeEvent } from 'react';
import { $api, api, call, type Schemas } from '../api/client';
import { useAction } from '../hooks';
import { formatDate } from '../money';
import { useSession } from '../session';
import { Badge, Button, DataTable, EmptyState, LoadError, QueryStatus, Spinner } from '../ui';
import { useAssetUpload, type AssetUploadState } from './asset-upload';

type Asset = Schemas['AssetResponse'];
type AssetStatus = Asset['status'];

// A list answers at most this many; the page says when there may be more.
const LIMIT = 100;
/** How often the list is read again while an asset is on its way to `ready` or `errored`. */
const LIVE_INTERVAL_MS = 1500;
const FINAL: readonly AssetStatus[] = ['ready', 'errored'];

const STATUS_WORDS: Record<AssetStatus, string> = {
  waiting: 'Waiting for its file',
  uploading: 'Uploading',
  processing: 'Processing',
  ready: 'Ready',
  errored: 'Failed',
};
const STATUS_TONES: Record<AssetStatus, 'neutral' | 'good' | 'warn' | 'bad' | 'info'> = {
  waiting: 'neutral',
  uploading: 'info',
  processing: 'info',
  ready: 'good',
  errored: 'bad',
};
/** What changes to a project's assets make stale. */
const ASSET_CHANGE = { invalidates: ['/projects/{projectId}/assets', '/assets/{assetId}'] } as const;

/** The page of `/content/projects/$projectId/assets`. */
export function ProjectAssetsPage() {
  const { projectId } = useParams({ from: '/content/projects/$projectId/assets' });
  // Keyed: another project starts the page afresh (its upload panel empty).
  return <ProjectAssets key={projectId} projectId={projectId} />;
}

/**
 * A content project's assets: the list with each asset's state, read again while any is not final
 * (`ready` or `errored`), a preview of the ready ones, and an upload with tus (asset-upload.ts).
 */
function ProjectAssets({ projectId }: { projectId: string }) {
  const session = useSession();
  const project = $api.useQuery('get', '/projects/{projectId}', { params: { path: { projectId } } });
  const assets = $api.useQuery(
    'get',
    '/projects/{projectId}/assets',
    { params: { path: { projectId }, query: { limit: LIMIT } } },
    {
      refetchInterval: (query) =>
        (query.state.data ?? []).some((asset) => !FINAL.includes(asset.status)) ? LIVE_INTERVAL_MS : false,
    },
  );
  const upload = useAssetUpload(projectId, session.project?.id ?? null);
  const rows = assets.data ?? [];
  const title = project.data?.primaryTitle;

  return (
    <section aria-labelledby="assets-heading">
      <p className="small">
        <Link to="/content">Content</Link>
      </p>
      <h1 id="assets-heading">{title ? `Assets of ${title}` : 'Assets'}</h1>
      {project.error && <LoadError error={project.error} retry={() => void project.refetch()} />}
      {!project.error && (
        <>
          <p className="muted">
            Video, audio, image and text files of this content project. An upload that stops (a lost connection, a
            closed tab) resumes where it stopped: pick the same file again.
          </p>
          <UploadPanel state={upload.state} onPick={upload.start} onPause={upload.pause} onResume={upload.resume} />
          <QueryStatus query={assets} loading="Loading the assets" />
          {assets.data && rows.length === 0 && (
            <EmptyState title="No assets yet.">Pick a file above to upload the first.</EmptyState>
          )}
          {rows.length > 0 && (
            <DataTable
              className="assets-table"
              caption={`Assets of ${title ?? 'the project'}, newest first`}
              columns={['Preview', 'Title', 'Kind', 'State', 'Size', 'Created', { hidden: 'Actions' }]}
            >
              {rows.map((asset) => (
                <AssetRow key={asset.id} asset={asset} />
              ))}
            </DataTable>
          )}
          {rows.length === LIMIT && <p className="muted small">The newest {LIMIT} assets are shown.</p>}
        </>
      )}
    </section>
  );
}

function UploadPanel({
  state,
  onPick,
  onPause,
  onResume,
}: {
  state: AssetUploadState | undefined;
  onPick: (file: File) => void;
  onPause: () => void;
  onResume: () => void;
}) {
  const inputId = useId();
  const busy = state?.phase === 'preparing' || state?.phase === 'uploading';
  const percent = state && state.total > 0 ? Math.floor((state.sent / state.total) * 100) : 0;
  return (
    <div className="card upload-panel">
      <h2>Upload a file</h2>
      <div className="field">
        <label htmlFor={inputId}>File to upload</label>
        <input
          id={inputId}
          type="file"
          accept="image/*,audio/*,video/*,text/*"
          disabled={busy}
          onChange={(event: ChangeEvent<HTMLInputElement>) => {
            const file = event.target.files?.[0];
            // Emptied, so picking the same file again (to resume it) is a change too.
            event.target.value = '';
            if (file) onPick(file);
          }}
        />
      </div>
      {state && (
        <div className="upload-status" data-phase={state.phase}>
          <p>
            <strong>{state.fileName}</strong>{' '}
            {state.phase === 'preparing' && (
              <span className="muted">
                {state.resumed ? 'Finding where the upload stopped…' : 'Creating the asset…'}
              </span>
            )}
            {state.phase === 'uploading' && state.resumed && <span className="muted">Resumed</span>}
            {state.phase === 'paused' && <span className="muted">Paused</span>}
            {state.phase === 'done' && <span className="muted">Uploaded: processing follows below</span>}
          </p>
          {state.phase !== 'failed' && (
            <div className="upload-progress-row">
              <progress
                className="upload-progress"
                max={100}
                value={percent}
                aria-label={`Upload of ${state.fileName}`}
                aria-valuetext={`${percent}%`}
              />
              <span aria-hidden="true">{percent}%</span>
              {state.phase === 'uploading' && (
                <Button variant="secondary" onClick={onPause}>
                  Pause
                </Button>
              )}
              {state.phase === 'paused' && <Button onClick={onResume}>Resume</Button>}
            </div>
          )}
          {state.error && (
            <p className="form-error" role="alert">
              {state.error}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

function AssetRow({ asset }: { asset: Asset }) {
  const remove = useAction(async () => {
    await call(api.DELETE('/assets/{assetId}', { params: { path: { assetId: asset.id } } }));
    return true;
  }, ASSET_CHANGE);
  return (
    <tr data-asset={asset.id} data-status={asset.status}>
      <td className="asset-preview">
        {asset.status === 'ready' ? <AssetPreview asset={asset} /> : <span className="muted">—</span>}
      </td>
      <th scope="row">
        {asset.title}
        <div className="muted small">{asset.fileName}</div>
      </th>
      <td>{asset.kind}</td>
      <td className="asset-state">
        <Badge tone={STATUS_TONES[asset.status]}>{STATUS_WORDS[asset.status]}</Badge>
        {asset.status === 'uploading' && <div className="muted small">Pick the same file above to resume</div>}
        {asset.error && (
          <div className="small">
            <span className="mono">{asset.error.code}</span>: {asset.error.message}
          </div>
        )}
      </td>
      <td>{formatBytes(asset.size)}</td>
      <td>{formatDate(asset.createdAt)}</td>
      <td>
        <Button
          variant="danger"
          busy={remove.busy}
          aria-label={`Delete ${asset.title}`}
          onClick={() => {
            if (window.confirm(`Delete ${asset.title}? Its file goes too.`)) void remove.run();
          }}
        >
          Delete
        </Button>
        {remove.error && (
          <p className="form-error" role="alert">
            {remove.error.message}
          </p>
        )}
      </td>
    </tr>
  );
}

/**
 * An image's thumbnail, or a player for audio and video. The thumbnail route wants the API's
 * credentials, which `<img>` cannot send: its few bytes are read with them and shown from a `blob:`
 * URL, freed when the preview goes. A player streams the file (with `Range`, seeking included) from
 * the asset's signed short-lived content URL, asked for only when the person presses Play.
 */
function AssetPreview({ asset }: { asset: Asset }) {
  const [playing, setPlaying] = useState(false);
  if (asset.thumbnailUrl) return <Thumbnail asset={asset} />;
  if (asset.kind !== 'audio' && asset.kind !== 'video') return <span className="muted">—</span>;
  if (!playing) {
    return (
      <Button variant="secondary" aria-label={`Play ${asset.title}`} onClick={() => setPlaying(true)}>
        Play
      </Button>
    );
  }
  return <Player asset={asset} />;
}

function Thumbnail({ asset }: { asset: Asset }) {
  const bytes = useQuery({
    queryKey: ['asset-thumbnail', asset.id, asset.sha256],
    queryFn: ({ signal }) =>
      call(
        api.GET('/assets/{assetId}/thumbnail', { params: { path: { assetId: asset.id } }, parseAs: 'blob', signal }),
      ) as Promise<Blob>,
    staleTime: Infinity,
  });
  const url = useObjectUrl(bytes.data);
  if (bytes.error) return <span className="form-error small">{bytes.error.message}</span>;
  if (!url) return <Spinner label={`Loading the thumbnail of ${asset.title}`} />;
  return <img className="asset-thumbnail" src={url} alt={`Thumbnail of ${asset.title}`} />;
}

function Player({ asset }: { asset: Asset }) {
  // Read once per Play: the URL expires, and the element keeps reading the one it was given.
  const signed = $api.useQuery(
    'get',
    '/assets/{assetId}/content-url',
    { params: { path: { assetId: asset.id } } },
    { staleTime: Infinity, gcTime: 0 },
  );
  if (signed.error) return <span className="form-error small">{signed.error.message}</span>;
  if (!signed.data) return <Spinner label={`Loading the player of ${asset.title}`} />;
  if (asset.kind === 'audio')
    return <audio controls preload="metadata" src={signed.data.url} aria-label={`Player of ${asset.title}`} />;
  return (
    <video
      className="asset-video"
      controls
      preload="metadata"
      src={signed.data.url}
      aria-label={`Player of ${asset.title}`}
    />
  );
}

function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return undefined;
    const created = URL.createObjectURL(blob);
    setUrl(created);
    return () => {
      URL.revokeObjectURL(created);
      setUrl(undefined);
    };
  }, [blob]);
  return url;
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
