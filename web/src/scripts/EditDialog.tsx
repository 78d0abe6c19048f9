import { useState } from 'react';
import { Button, FileInput, Group, Modal, NativeSelect, Progress, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { messageOf, uploadWithProgress } from '../api/client';
import { fileTooLarge, formatSize } from '../components/CodeOrFileInput';
import { notifySuccess } from '../components/notify';
import { OBFUSCATION } from '../lib/labels';
import { ExecutorRuleInput, executorRuleProblem, ruleOf, type ExecutorRule } from './ExecutorRuleInput';
import type { Script } from './types';

// Over the server's 40 MB limit (checked before sending it).
export const tooLargeMessage = (bytes: number) =>
  `This file is ${formatSize(bytes)}: scripts may be at most 40 MB (41,943,040 bytes). Minify or split it first.`;

export const BASE = '/api/v1/vss/api/scripts';

/** Rename, re-obfuscate, replace the code or change which executors it runs on; only what changed is sent. */
export function EditDialog({ script, onClose, serviceId }: { script: Script | null; onClose: () => void; serviceId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(script?.name ?? '');
  const [obfuscationType, setObfuscation] = useState(script?.obfuscationType ?? 'NONE');
  const [file, setFile] = useState<File | null>(null);
  const [executors, setExecutors] = useState<ExecutorRule>(ruleOf(script?.executors));
  const [progress, setProgress] = useState<number | null>(null);
  const tooLarge = fileTooLarge(file);
  const save = useMutation({
    mutationFn: async (target: Script) => {
      if (file && tooLarge) throw new Error(tooLargeMessage(file.size));
      const body: Record<string, unknown> = {};
      if (name.trim() !== target.name) body.name = name.trim();
      if (obfuscationType !== target.obfuscationType) body.obfuscationType = obfuscationType;
      if (file) body.code = await file.text();
      if (JSON.stringify(executors) !== JSON.stringify(ruleOf(target.executors))) body.executors = executors;
      setProgress(0);
      return uploadWithProgress<Script>('PUT', `${BASE}/${encodeURIComponent(target.id)}`, body, serviceId, setProgress);
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['scripts', serviceId] });
      notifySuccess('Script saved');
      onClose();
    },
    onSettled: () => setProgress(null),
  });
  return (
    <Modal opened={script !== null} onClose={onClose} title={`Edit ${script?.name ?? ''}`} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (script) save.mutate(script);
        }}
      >
        <Stack>
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          <NativeSelect
            label="Obfuscation"
            value={obfuscationType}
            onChange={(e) => setObfuscation(e.currentTarget.value)}
            data={OBFUSCATION}
          />
          <FileInput
            label="Replace the code"
            description="Up to 40 MB"
            placeholder="Choose a file (optional)"
            value={file}
            onChange={(f) => {
              setFile(f);
              save.reset();
            }}
            clearable
            error={tooLarge && file ? tooLargeMessage(file.size) : undefined}
          />
          <ExecutorRuleInput value={executors} onChange={setExecutors} />
          {progress !== null && <Progress value={Math.round(progress * 100)} aria-label="Upload progress" />}
          {save.error && !tooLarge && (
            <Text c="red" size="sm" role="alert">
              {messageOf(save.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} disabled={tooLarge || !!executorRuleProblem(executors)}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
