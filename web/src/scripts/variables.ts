/** The rules of contract §13.3, checked in the form so a seller reads a sentence before anything is sent. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_VARIABLES = 100;
export const MAX_VALUE_CHARS = 4096;

export interface VariableRow {
  name: string;
  value: string;
}

/** One sentence per row that cannot be saved (index → sentence), and one for the whole list. */
export function variableProblems(rows: VariableRow[]): { rows: Map<number, string>; list: string | null } {
  const problems = new Map<number, string>();
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const name = row.name.trim();
    if (!VARIABLE_NAME.test(name)) {
      problems.set(
        index,
        name === ''
          ? 'Give the variable a name.'
          : `“${name}” is not a valid name: start with a letter or _, then use only letters, digits or _ (at most 64).`,
      );
    } else if (seen.has(name)) {
      problems.set(index, `“${name}” is used twice; each name once.`);
    } else if ([...row.value].length > MAX_VALUE_CHARS) {
      problems.set(index, `The value of ${name} is ${[...row.value].length} characters; at most ${MAX_VALUE_CHARS}.`);
    }
    seen.add(name);
  });
  const list = rows.length > MAX_VARIABLES ? `At most ${MAX_VARIABLES} variables; remove ${rows.length - MAX_VARIABLES}.` : null;
  return { rows: problems, list };
}
