import type { ReactNode } from 'react';
import { Alert, Button, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { messageOf } from '../api/client';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" />
        <Text c="dimmed">{label}…</Text>
      </Group>
    </Center>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" py="xl" gap="xs">
      <Text fw={600}>{title}</Text>
      {children && (
        <Text c="dimmed" ta="center">
          {children}
        </Text>
      )}
    </Stack>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <Alert color="red" title="Could not load this" role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{messageOf(error)}</Text>
        {retry && (
          <Button size="xs" variant="light" color="red" onClick={retry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" align="center" mb="md" wrap="wrap" gap="sm">
      <Title order={2}>{title}</Title>
      {children && (
        <Group gap="xs" wrap="wrap">
          {children}
        </Group>
      )}
    </Group>
  );
}

/** A section another page fills in later; says so instead of showing nothing. */
export function Placeholder({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Empty title="Not built yet">This section of the dashboard is coming; the API already offers it (see /docs).</Empty>
    </>
  );
}
