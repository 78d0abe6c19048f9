import type { ReactNode } from 'react';
import { Paper, Title } from '@mantine/core';

/** A titled panel of a page, exposed as a named region so people (and tests) can find it by its title. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={3} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}
