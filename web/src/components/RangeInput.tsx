import { NumberInput, type NumberInputProps } from '@mantine/core';
import { rangeProblem, type Range } from '../lib/numbers';

/**
 * A whole-number input that never clamps (Mantine's default moves an out-of-range value to the nearest
 * bound on blur, so the seller's 0 became 1 without a word): a value outside the range stays as typed and
 * shows a sentence under the field; the form refuses to send while one is there.
 */
export function RangeInput({
  range,
  value,
  onChange,
  showEmpty,
  ...props
}: { range: Range; value: number | string; onChange: (value: number | string) => void; showEmpty?: boolean } & Omit<
  NumberInputProps,
  'value' | 'onChange' | 'min' | 'max' | 'error' | 'label'
>) {
  const problem = rangeProblem(value, range);
  const shown = problem && (value !== '' || showEmpty) ? problem : null;
  return (
    <NumberInput
      {...props}
      label={range.label}
      min={range.min}
      max={range.max}
      value={value}
      onChange={onChange}
      clampBehavior="none"
      allowDecimal={false}
      error={shown}
    />
  );
}
