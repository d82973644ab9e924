import { Anchor, Button, Container, Group, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, useParams, useRouterState } from '@tanstack/react-router';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { $viewer, readShareFragment, shareFragment, type ShareAddress } from '../api/viewer';
import { PRODUCT } from '../product';
import { ListTable } from '../components/list-table';
import { typeLabel } from '../content';
import { LoadError, Spinner } from '../ui';
import { CONTRAST_VARS, ProjectThumb, sentence } from './content-forms';

type ViewerProject = Schemas['ViewerProjectResponse'];

/**
 * A share link's page, opened by anyone: the address carries the project, and after `#` the link's
 * token and a publishable key. It reads through the `/viewer` routes only, asks for the link's
 * password when the service does, and keeps the password in memory only (across the sub-projects
 * it opens, which are the same page).
 */
export function SharedProjectPage() {
  const { projectId } = useParams({ from: '/shared/$projectId' });
  const hash = useRouterState({ select: (state) => state.location.hash });
  const address = readShareFragment(hash);
  const [password, setPassword] = useState<string | undefined>();

  return (
    <Container component="main" id="main" size="md" py="xl" style={CONTRAST_VARS}>
      <Text fw={700} c="dimmed" mb="lg">
        {PRODUCT} · shared with you
      </Text>
      {address ? (
        <SharedProject projectId={projectId} address={address} password={password} onPassword={setPassword} />
      ) : (
        <Missing
          title="This link is incomplete"
          text="The address lacks part of the link: ask whoever shared it to copy it again, whole."
        />
      )}
    </Container>
  );
}

function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · ${PRODUCT}`;
  }, [title]);
}

function Missing({ title, text }: { title: string; text: string }) {
  useTitle(title);
  return (
    <Paper withBorder p="xl" component="section" aria-labelledby="shared-heading">
      <Title order={1} id="shared-heading" mb="sm">
        {title}
      </Title>
      <Text>{text}</Text>
    </Paper>
  );
}

/** The request's credentials: the publishable key, the link's token, and its password once typed. */
function viewerInit(projectId: string, address: ShareAddress, password: string | undefined) {
  return {
    params: {
      path: { projectId },
      header: { 'X-Share-Token': address.token, ...(password ? { 'X-Share-Password': password } : {}) },
    },
    headers: { Authorization: `Bearer ${address.key}` },
  };
}

function SharedProject({
  projectId,
  address,
  password,
  onPassword,
}: {
  projectId: string;
  address: ShareAddress;
  password: string | undefined;
  onPassword: (password: string) => void;
}) {
  const project = $viewer.useQuery('get', '/viewer/projects/{projectId}', viewerInit(projectId, address, password));
  const error = project.error;
  if (error?.statusCode === 404) {
    return (
      <Missing
        title="Nothing to show here"
        text="This link does not open anything: it may have been revoked or have expired, or the address is wrong."
      />
    );
  }
  // The service asks for the link's password (or says the one sent is wrong) with a 401 that names it.
  if (error?.statusCode === 401 && /password/i.test(error.message)) {
    return <PasswordForm wrong={password ? error.message : undefined} onSubmit={onPassword} />;
  }
  if (error) return <LoadError error={error} retry={() => void project.refetch()} />;
  if (!project.data) return <Spinner label="Opening the shared project" />;
  return <ProjectView project={project.data} address={address} password={password} />;
}

function PasswordForm({ wrong, onSubmit }: { wrong: string | undefined; onSubmit: (password: string) => void }) {
  const [value, setValue] = useState('');
  useTitle('Password needed');
  return (
    <Paper withBorder p="xl" maw={480} component="section" aria-labelledby="shared-heading">
      <Title order={1} id="shared-heading" mb="xs">
        This link needs a password
      </Title>
      <Text c="dimmed" mb="md">
        Whoever shared it chose one: type it to see what the link opens.
      </Text>
      <form
        aria-label="Open the shared project"
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit(value);
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Password"
            type="password"
            autoComplete="off"
            required
            // The one field: no mark needed, and its name stays "Password".
            withAsterisk={false}
            autoFocus
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            error={wrong ? `${sentence(wrong)} Check it with whoever shared the link.` : undefined}
          />
          <Group>
            <Button type="submit">Open</Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function ProjectView({
  project,
  address,
  password,
}: {
  project: ViewerProject;
  address: ShareAddress;
  password: string | undefined;
}) {
  useTitle(project.primaryTitle);
  const children = $viewer.useQuery('get', '/viewer/projects/{projectId}/children', {
    ...viewerInit(project.id, address, password),
    params: { ...viewerInit(project.id, address, password).params, query: { limit: 100 } },
  });
  const rows = children.data ?? [];
  const list = (values: readonly string[]) => values.join(', ');
  return (
    <Stack component="article" aria-labelledby="shared-heading" gap="lg">
      <Group align="flex-start" wrap="nowrap" gap="lg">
        <ProjectThumb type={typeLabel(project.projectTypeId)} />
        <div>
          <Title order={1} id="shared-heading">
            {project.primaryTitle}
          </Title>
          {project.description && <Text mt="xs">{project.description}</Text>}
        </div>
      </Group>
      <Paper withBorder p="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" component="dl" m={0}>
          <Detail term="Type">
            {typeLabel(project.projectTypeId)}
            {project.subTypeId ? ` · ${project.subTypeId}` : ''}
          </Detail>
          {project.primaryLanguageId && <Detail term="Language">{project.primaryLanguageId}</Detail>}
          {project.categoryId && (
            <Detail term="Category">{[project.categoryId, project.subCategoryId].filter(Boolean).join(' · ')}</Detail>
          )}
          {/* Links, not <img>: the dashboard's Content-Security-Policy loads images from its own origin only. */}
          {(project.portraitImg || project.landscapeImg) && (
            <Detail term="Images">
              {project.portraitImg && (
                <Anchor href={project.portraitImg} rel="noreferrer noopener" target="_blank">
                  Portrait
                </Anchor>
              )}
              {project.portraitImg && project.landscapeImg && ' · '}
              {project.landscapeImg && (
                <Anchor href={project.landscapeImg} rel="noreferrer noopener" target="_blank">
                  Landscape
                </Anchor>
              )}
            </Detail>
          )}
          {project.topicIds.length > 0 && <Detail term="Topics">{list(project.topicIds)}</Detail>}
          {project.supportedFormats.length > 0 && <Detail term="Formats">{list(project.supportedFormats)}</Detail>}
        </SimpleGrid>
      </Paper>
      <section aria-labelledby="shared-children-heading">
        <Title order={2} id="shared-children-heading" mb="sm">
          Inside
        </Title>
        {children.isPending && <Spinner label="Loading what is inside" />}
        {children.error && <LoadError error={children.error} retry={() => void children.refetch()} />}
        {children.data && (
          <ListTable
            caption={`Inside ${project.primaryTitle}`}
            rows={rows}
            rowKey={(child) => child.id}
            rowProps={(child) => ({ 'data-shared-project': child.id })}
            empty={<Text c="dimmed">Nothing else to see inside.</Text>}
            columns={[
              {
                id: 'title',
                header: 'Title',
                sortBy: (child) => child.primaryTitle,
                cell: (child) => (
                  <Group gap="sm" wrap="nowrap">
                    <ProjectThumb type={typeLabel(child.projectTypeId)} />
                    <Link to="/shared/$projectId" params={{ projectId: child.id }} hash={shareFragment(address)}>
                      {child.primaryTitle}
                    </Link>
                  </Group>
                ),
              },
              {
                id: 'type',
                header: 'Type',
                width: 140,
                sortBy: (child) => typeLabel(child.projectTypeId),
                cell: (child) => typeLabel(child.projectTypeId),
              },
            ]}
          />
        )}
      </section>
    </Stack>
  );
}

/** One term and its value in the project's details. */
function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" fz="xs" c="dimmed" tt="uppercase" fw={600}>
        {term}
      </Text>
      <Text component="dd" m={0}>
        {children}
      </Text>
    </div>
  );
}
