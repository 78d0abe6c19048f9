import { Alert, Code, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { formatSize } from '../components/CodeOrFileInput';
import { Section } from '../components/Section';
import { ErrorState, Loading } from '../components/states';
import { ageInWords, databaseKindLabel } from '../lib/backup';

const COMMAND = 'npx keyward backup --out <file>';

/** Where the backup steps are written down; the dashboard does not serve the docs, so it names the page. */
const GUIDE = (
  <>
    the “Backups and restore” part of the Going live guide (<Code>docs/deploy.md</Code>)
  </>
);

/**
 * Admins only (GET /admin/backup answers others 403, and the page shows this section to admins alone): when
 * `keyward backup` last ran on this server. A server nobody backs up looks exactly like one backed up every night.
 */
export function BackupSection() {
  const status = useQuery({
    queryKey: ['admin', 'backup'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/backup')),
  });
  let body;
  if (status.isPending) body = <Loading label="Loading the backup status" />;
  else if (status.isError) body = <ErrorState error={status.error} retry={() => void status.refetch()} />;
  else {
    const { lastBackup, stale, staleAfterDays, databaseKind } = status.data;
    const finished = lastBackup ? new Date(lastBackup.finishedAt) : null;
    body = (
      <Stack gap="sm">
        <Text size="sm">Database: {databaseKindLabel(databaseKind)}</Text>
        {lastBackup && finished ? (
          <Text size="sm">
            Last backup {ageInWords(Date.now() - finished.getTime())} ({finished.toLocaleString()}): {formatSize(lastBackup.sizeBytes)},{' '}
            {lastBackup.keyCount.toLocaleString()} keys.
          </Text>
        ) : null}
        {stale && (
          <Alert color="yellow" title={lastBackup ? `No backup in the last ${staleAfterDays} days` : 'No backup yet'}>
            <Text size="sm">
              Run <Code>{COMMAND}</Code> on the server, then copy the file somewhere else together with the server’s secret. To back up
              every night and to restore, see {GUIDE}.
            </Text>
          </Alert>
        )}
        <Text size="xs" c="dimmed">
          Only backups made with <Code>keyward backup</Code> show here (a <Code>pg_dump</Code> run by hand does not).
        </Text>
      </Stack>
    );
  }
  return <Section title="Backups">{body}</Section>;
}
