import type { ReactNode } from 'react';
import { MONO_INPUT } from './monoInput';
import { FileInput, Textarea } from '@mantine/core';

/** The server refuses code over 40 MB (41,943,040 bytes, PAYLOAD_TOO_LARGE); the forms say so before sending it. */
export const MAX_CODE_BYTES = 41_943_040;

export const formatSize = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** True when a chosen file is over the 40 MB limit (the form shows the error and does not submit). */
export const fileTooLarge = (file: File | null) => file !== null && file.size > MAX_CODE_BYTES;

/**
 * The code to send: the chosen file's text, else the typed code. Throws `tooLarge(bytes)` when it is over
 * 40 MB (the file's size is checked before reading it, typed code by its UTF-8 size).
 */
export async function codeToSend(file: File | null, typed: string, tooLarge: (bytes: number) => string): Promise<string> {
  if (file && file.size > MAX_CODE_BYTES) throw new Error(tooLarge(file.size));
  const source = file ? await file.text() : typed;
  const bytes = file ? file.size : new Blob([source]).size;
  if (bytes > MAX_CODE_BYTES) throw new Error(tooLarge(bytes));
  return source;
}

/**
 * A "Code" textarea and an "Or a file" file input that replaces it (the textarea is disabled while a file is
 * chosen); a file over 40 MB shows `tooLarge(size)` as the file input's error.
 */
export function CodeOrFileInput({
  code,
  onCodeChange,
  file,
  onFileChange,
  tooLarge,
  description,
  placeholder,
  accept,
  minRows,
  maxRows,
  codeArea,
}: {
  code: string;
  onCodeChange: (code: string) => void;
  file: File | null;
  onFileChange: (file: File | null) => void;
  tooLarge: (bytes: number) => string;
  description: string;
  placeholder: string;
  accept?: string;
  minRows: number;
  maxRows: number;
  /** Shown instead of the textarea (e.g. while the stored code loads). */
  codeArea?: ReactNode;
}) {
  return (
    <>
      {codeArea ?? (
        <Textarea
          label="Code"
          autosize
          minRows={minRows}
          maxRows={maxRows}
          styles={MONO_INPUT}
          value={code}
          onChange={(e) => onCodeChange(e.currentTarget.value)}
          disabled={file !== null}
        />
      )}
      <FileInput
        label="Or a file"
        description={description}
        placeholder={placeholder}
        value={file}
        onChange={onFileChange}
        clearable
        accept={accept}
        error={file && fileTooLarge(file) ? tooLarge(file.size) : undefined}
      />
    </>
  );
}
