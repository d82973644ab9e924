import {
  ActionIcon,
  Alert,
  Paper,
  Badge,
  Button,
  Group,
  Menu,
  Modal,
  Progress,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { $api, api, call, type Schemas } from '../api/client';
import { DateTime } from '../components/date-time';
import { ListTable } from '../components/list-table';
import { useAction } from '../hooks';
import { useSession } from '../session';
import { EmptyState, LoadError, QueryStatus, Spinner } from '../ui';
import { useAssetUpload, type AssetUploadState } from './asset-upload';
import {
  ConfirmModal,
  CONTRAST_VARS,
  DIALOG_PROPS,
  fieldSentence,
  FormModal,
  RefusalAlert,
  sentence,
  DIALOG_ROOT,
} from './content-forms';

type Asset = Schemas['AssetResponse'];
type AssetStatus = Asset['status'];

// A list answers at most this many; the page says when there may be more.
const LIMIT = 100;
/** How often the list is read again while an asset is on its way to `ready` or `errored`. */
const LIVE_INTERVAL_MS = 1500;
const FINAL: readonly AssetStatus[] = ['ready', 'errored'];
/** A thumbnail's width in a list, as YouTube Studio's; its height follows the picture. */
const THUMB_WIDTH = 96;

const STATUS_WORDS: Record<AssetStatus, string> = {
  waiting: 'Waiting for its file',
  uploading: 'Uploading',
  processing: 'Processing',
  ready: 'Ready',
  errored: 'Failed',
};
const STATUS_COLORS: Record<AssetStatus, string> = {
  waiting: 'gray',
  uploading: 'blue',
  processing: 'blue',
  ready: 'green',
  errored: 'red',
};
const KIND_LABELS: Record<Asset['kind'], string> = { video: 'Video', audio: 'Audio', image: 'Image', text: 'Text' };
/** What changes to a project's assets make stale. */
const ASSET_CHANGE = { invalidates: ['/projects/{projectId}/assets', '/assets/{assetId}'] } as const;

/** The page of `/content/projects/$projectId/assets`. */
export function ProjectAssetsPage() {
  const { projectId } = useParams({ from: '/content/projects/$projectId/assets' });
  // Keyed: another project starts the page afresh (its upload panel empty).
  return <ProjectAssets key={projectId} projectId={projectId} />;
}

function ProjectAssets({ projectId }: { projectId: string }) {
  const project = $api.useQuery('get', '/projects/{projectId}', { params: { path: { projectId } } });
  const title = project.data?.primaryTitle;
  return (
    <section aria-labelledby="assets-page-heading" style={CONTRAST_VARS} {...DIALOG_ROOT}>
      <p className="breadcrumb">
        <Link to="/content">Content</Link>
        {project.data && (
          <>
            {' / '}
            <Link to="/content/projects/$projectId" params={{ projectId }}>
              {project.data.primaryTitle}
            </Link>
          </>
        )}
      </p>
      <Title order={1} id="assets-page-heading" mb="xs">
        {title ? `Assets of ${title}` : 'Assets'}
      </Title>
      {project.error && <LoadError error={project.error} retry={() => void project.refetch()} />}
      {!project.error && <AssetsList projectId={projectId} title={title} />}
    </section>
  );
}

/**
 * A content project's assets: a table with each asset's thumbnail (96 px wide), state and menu, read
 * again while any is not final (`ready` or `errored`), and the upload dialog (tus, asset-upload.ts).
 * The project's page and the assets page both show it.
 */
export function AssetsList({ projectId, title }: { projectId: string; title: string | undefined }) {
  const session = useSession();
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
  const [uploading, setUploading] = useState(false);
  const [renaming, setRenaming] = useState<Asset>();
  const rows = assets.data ?? [];
  const running = upload.state && ['preparing', 'resuming', 'uploading'].includes(upload.state.phase);
  const activeId = running ? upload.state?.assetId : undefined;
  const openUpload = () => setUploading(true);

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="center">
        <Text c="dimmed" fz="sm" maw={640}>
          Video, audio, image and text files of this project. An upload that stops (a lost connection, a closed tab)
          goes on where it stopped when the same file is picked again.
        </Text>
        <Button onClick={openUpload}>Upload a file</Button>
      </Group>
      {upload.state && !uploading && <UploadSummary state={upload.state} onOpen={openUpload} />}
      <QueryStatus query={assets} loading="Loading the assets" />
      {assets.data && (
        <ListTable
          caption={`Assets of ${title ?? 'the project'}, newest first`}
          rows={rows}
          rowKey={(asset) => asset.id}
          busy={assets.isFetching}
          rowProps={(asset) => ({ 'data-asset': asset.id, 'data-status': asset.status })}
          empty={<EmptyState title="No assets yet.">Upload the first with Upload a file.</EmptyState>}
          columns={[
            {
              id: 'preview',
              header: 'Preview',
              width: THUMB_WIDTH + 32,
              cell: (asset) => (asset.status === 'ready' ? <AssetPreview asset={asset} /> : <Text c="dimmed">—</Text>),
            },
            {
              id: 'title',
              header: 'Title',
              sortBy: (asset) => asset.title,
              cell: (asset) => (
                <Stack gap={0}>
                  <Text fz="sm" fw={500}>
                    {asset.title}
                  </Text>
                  <Text fz="xs" c="dimmed">
                    {asset.fileName}
                  </Text>
                </Stack>
              ),
            },
            {
              id: 'kind',
              header: 'Kind',
              width: 90,
              sortBy: (asset) => asset.kind,
              cell: (asset) => KIND_LABELS[asset.kind],
            },
            {
              id: 'state',
              header: 'State',
              width: 220,
              sortBy: (asset) => STATUS_WORDS[asset.status],
              cell: (asset) => <AssetState asset={asset} active={asset.id === activeId ? upload.state : undefined} />,
            },
            {
              id: 'size',
              header: 'Size',
              width: 100,
              align: 'right',
              sortBy: (asset) => asset.size,
              cell: (asset) => formatBytes(asset.size),
            },
            {
              id: 'created',
              header: 'Created',
              width: 170,
              sortBy: (asset) => new Date(asset.createdAt),
              cell: (asset) => <DateTime value={asset.createdAt} />,
            },
            {
              id: 'actions',
              header: 'Actions',
              hiddenHeader: true,
              width: 64,
              align: 'right',
              cell: (asset) => <AssetMenu asset={asset} onRename={setRenaming} onUpload={openUpload} />,
            },
          ]}
        />
      )}
      {rows.length === LIMIT && (
        <Text c="dimmed" fz="sm">
          The newest {LIMIT} assets are shown.
        </Text>
      )}
      <UploadDialog
        opened={uploading}
        onClose={() => setUploading(false)}
        state={upload.state}
        onPick={upload.start}
        onPause={upload.pause}
        onResume={upload.resume}
      />
      {renaming && <RenameAssetModal asset={renaming} onClose={() => setRenaming(undefined)} />}
    </Stack>
  );
}

/** An asset's state in its row: the badge, and what the person may do or needs to know. */
function AssetState({ asset, active }: { asset: Asset; active: AssetUploadState | undefined }) {
  return (
    <Stack gap={2} className="asset-state">
      <Badge variant="light" color={STATUS_COLORS[asset.status]}>
        {STATUS_WORDS[asset.status]}
      </Badge>
      {/* An upload that runs in this page shows its percent; one that stopped is picked up again with its file. */}
      {asset.status === 'uploading' &&
        (active ? (
          <Text fz="xs" c="dimmed">
            {percentOf(active)}% sent
          </Text>
        ) : (
          <Text fz="xs" c="dimmed">
            Interrupted: pick the same file again to resume.
          </Text>
        ))}
      {asset.error && (
        <Text fz="xs" c="var(--mantine-color-error)">
          {sentence(asset.error.message)}
        </Text>
      )}
    </Stack>
  );
}

function AssetMenu({
  asset,
  onRename,
  onUpload,
}: {
  asset: Asset;
  onRename: (asset: Asset) => void;
  onUpload: () => void;
}) {
  const remove = useAction(async () => {
    await call(api.DELETE('/assets/{assetId}', { params: { path: { assetId: asset.id } } }));
    return true;
  }, ASSET_CHANGE);
  const [asking, setAsking] = useState(false);
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      {remove.error && (
        <Text c="var(--mantine-color-error)" fz="xs" role="alert">
          {sentence(remove.error.message)}
        </Text>
      )}
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${asset.title}`} loading={remove.busy}>
            <span aria-hidden="true">⋯</span>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => onRename(asset)}>Rename</Menu.Item>
          {asset.status === 'uploading' && <Menu.Item onClick={onUpload}>Resume the upload</Menu.Item>}
          <Menu.Divider />
          <Menu.Item onClick={() => setAsking(true)}>Delete</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {asking && (
        <ConfirmModal
          title={`Delete ${asset.title}`}
          confirm={`Delete ${asset.title}`}
          onConfirm={() => void remove.run()}
          onClose={() => setAsking(false)}
        >
          Delete {asset.title}? Its stored file goes too, and this cannot be undone.
        </ConfirmModal>
      )}
    </Group>
  );
}

function RenameAssetModal({ asset, onClose }: { asset: Asset; onClose: () => void }) {
  const [title, setTitle] = useState(asset.title);
  const rename = useAction(async () => {
    await call(
      api.PATCH('/assets/{assetId}', { params: { path: { assetId: asset.id } }, body: { title: title.trim() } }),
    );
    onClose();
    return true;
  }, ASSET_CHANGE);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={`Rename ${asset.title}`}
      submit="Rename"
      busy={rename.busy}
      onSubmit={() => void rename.run()}
    >
      <TextInput
        label="Title"
        required
        data-autofocus
        value={title}
        onChange={(event) => setTitle(event.currentTarget.value)}
        error={fieldSentence(rename.error, 'title', 'Title')}
      />
      <RefusalAlert error={rename.error} fields={['title']} />
    </FormModal>
  );
}

/** An upload's state in a word, for its badge (the sentence beside it says the rest). */
const PHASE_WORDS: Record<Exclude<AssetUploadState['phase'], 'done'>, string> = {
  preparing: 'Starting',
  resuming: 'Resuming',
  uploading: 'Uploading',
  paused: 'Paused',
  failed: 'Not uploaded',
};

const percentOf = (state: AssetUploadState) => (state.total > 0 ? Math.floor((state.sent / state.total) * 100) : 0);

/** The asset an upload sent its bytes to, read until its processing ends. */
function useUploadedAsset(state: AssetUploadState | undefined) {
  const done = state?.phase === 'done' && Boolean(state.assetId);
  return $api.useQuery(
    'get',
    '/assets/{assetId}',
    { params: { path: { assetId: state?.assetId ?? '' } } },
    {
      enabled: done,
      refetchInterval: (query) =>
        query.state.data && FINAL.includes(query.state.data.status) ? false : LIVE_INTERVAL_MS,
    },
  );
}

/** What an upload is doing, in words: one of its states, the asset's own once every byte is sent. */
function describeUpload(state: AssetUploadState, asset: Asset | undefined): { words: string; tone: string } {
  const percent = percentOf(state);
  switch (state.phase) {
    case 'preparing':
      return { words: 'Creating the asset…', tone: 'blue' };
    case 'resuming':
      return { words: `Resuming from ${percent}%…`, tone: 'blue' };
    case 'uploading':
      return { words: `Uploading: ${percent}%${state.resumed ? ' (resumed)' : ''}`, tone: 'blue' };
    case 'paused':
      return { words: `Paused at ${percent}%`, tone: 'yellow' };
    case 'failed':
      return { words: 'Not uploaded', tone: 'red' };
    case 'done':
      if (asset?.status === 'ready') return { words: 'Ready', tone: 'green' };
      if (asset?.status === 'errored') return { words: 'Failed in processing', tone: 'red' };
      return { words: 'Processing: every byte arrived, the file is being checked', tone: 'blue' };
  }
}

/**
 * The upload's progress and its controls: the percent while bytes go, Pause and Resume, the
 * processing that follows, and why it failed when it did.
 */
function UploadStatus({
  state,
  onPause,
  onResume,
}: {
  state: AssetUploadState;
  onPause?: () => void;
  onResume?: () => void;
}) {
  const asset = useUploadedAsset(state).data;
  const { words, tone } = describeUpload(state, asset);
  const percent = percentOf(state);
  const processing = state.phase === 'done' && asset?.status !== 'ready' && asset?.status !== 'errored';
  const reason = state.error ?? (state.phase === 'done' && asset?.error ? sentence(asset.error.message) : undefined);
  return (
    <Stack gap={6} className="upload-status" data-phase={state.phase} data-asset-status={asset?.status}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text fz="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
          {state.fileName}
        </Text>
        <Badge variant="light" color={tone} style={{ flex: 'none' }}>
          {state.phase === 'done' ? STATUS_WORDS[asset?.status ?? 'processing'] : PHASE_WORDS[state.phase]}
        </Badge>
      </Group>
      <Text fz="sm" aria-live="polite">
        {words}
      </Text>
      {state.phase !== 'failed' && (
        <Progress.Root size="lg">
          <Progress.Section
            value={processing ? 100 : percent}
            striped={processing || state.phase === 'resuming'}
            animated={processing || state.phase === 'resuming'}
            color={tone}
            aria-label={`Upload of ${state.fileName}`}
          />
        </Progress.Root>
      )}
      {reason && (
        <Alert color={state.phase === 'paused' ? 'yellow' : 'red'} variant="light" role="alert">
          {reason}
        </Alert>
      )}
      {(onPause || onResume) && (
        <Group gap="xs">
          {state.phase === 'uploading' && onPause && (
            <Button variant="default" onClick={onPause}>
              Pause
            </Button>
          )}
          {state.phase === 'paused' && onResume && <Button onClick={onResume}>Resume</Button>}
        </Group>
      )}
    </Stack>
  );
}

/** The last upload, under the list while its dialog is closed. */
function UploadSummary({ state, onOpen }: { state: AssetUploadState; onOpen: () => void }) {
  return (
    <Paper withBorder p="sm" component="section" aria-label="Last upload">
      <UploadStatus state={state} />
      <Button variant="subtle" size="compact-sm" mt="xs" onClick={onOpen}>
        Show the upload
      </Button>
    </Paper>
  );
}

/**
 * The upload dialog: a drop zone (or a picker) for one file, then the upload's states. While bytes go
 * the zone takes no other file; closing the dialog leaves the upload running, its percent in the list.
 */
function UploadDialog({
  opened,
  onClose,
  state,
  onPick,
  onPause,
  onResume,
}: {
  opened: boolean;
  onClose: () => void;
  state: AssetUploadState | undefined;
  onPick: (file: File) => void;
  onPause: () => void;
  onResume: () => void;
}) {
  const busy = state !== undefined && ['preparing', 'resuming', 'uploading'].includes(state.phase);
  const [refused, setRefused] = useState<string>();
  const openPicker = useRef<() => void>(null);
  return (
    <Modal opened={opened} onClose={onClose} title="Upload a file" centered size="lg" {...DIALOG_PROPS}>
      <Stack gap="md">
        <Dropzone
          onDrop={(files) => {
            setRefused(undefined);
            if (files[0]) onPick(files[0]);
          }}
          onReject={(rejections) => setRefused(rejections[0]?.errors[0]?.message)}
          multiple={false}
          disabled={busy}
          openRef={openPicker}
          // The button below opens the picker from the keyboard; the zone is for a pointer's drop.
          activateOnKeyboard={false}
          tabIndex={-1}
          inputProps={{ 'aria-label': 'File to upload' }}
        >
          <Stack align="center" gap={4} py="lg" style={{ pointerEvents: 'none' }}>
            <Text fw={600}>{busy ? 'An upload is under way' : 'Drop a file here, or click to pick one'}</Text>
            <Text fz="sm" c="dimmed">
              A video, audio, image or text file. Picking a file whose upload stopped goes on where it stopped.
            </Text>
          </Stack>
        </Dropzone>
        <Group>
          <Button variant="default" disabled={busy} onClick={() => openPicker.current?.()}>
            Choose a file
          </Button>
        </Group>
        {refused && (
          <Alert color="red" variant="light" role="alert">
            {sentence(refused)}
          </Alert>
        )}
        {state && <UploadStatus state={state} onPause={onPause} onResume={onResume} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {busy ? 'Hide: the upload goes on' : 'Done'}
          </Button>
        </Group>
      </Stack>
    </Modal>
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
  if (asset.kind !== 'audio' && asset.kind !== 'video') return <Text c="dimmed">—</Text>;
  if (!playing) {
    return (
      <Button variant="default" size="xs" aria-label={`Play ${asset.title}`} onClick={() => setPlaying(true)}>
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
  if (bytes.error)
    return (
      <Text c="var(--mantine-color-error)" fz="xs">
        {sentence(bytes.error.message)}
      </Text>
    );
  if (!url) return <Spinner label={`Loading the thumbnail of ${asset.title}`} />;
  // At its size: 96 px wide, as tall as the picture's proportions make it.
  const height = asset.width && asset.height ? Math.round((THUMB_WIDTH * asset.height) / asset.width) : undefined;
  return (
    <img
      src={url}
      width={THUMB_WIDTH}
      height={height}
      style={{ display: 'block', borderRadius: 'var(--mantine-radius-sm)', objectFit: 'cover' }}
      alt={`Thumbnail of ${asset.title}`}
    />
  );
}

function Player({ asset }: { asset: Asset }) {
  // Read once per Play: the URL expires, and the element keeps reading the one it was given.
  const signed = $api.useQuery(
    'get',
    '/assets/{assetId}/content-url',
    { params: { path: { assetId: asset.id } } },
    { staleTime: Infinity, gcTime: 0 },
  );
  if (signed.error)
    return (
      <Text c="var(--mantine-color-error)" fz="xs">
        {sentence(signed.error.message)}
      </Text>
    );
  if (!signed.data) return <Spinner label={`Loading the player of ${asset.title}`} />;
  if (asset.kind === 'audio')
    return (
      <audio
        style={{ width: '100%' }}
        controls
        preload="metadata"
        src={signed.data.url}
        aria-label={`Player of ${asset.title}`}
      />
    );
  return (
    <video
      width={THUMB_WIDTH}
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
