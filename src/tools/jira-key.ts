import { toolError } from "../core/errors.ts";
import { err } from "../core/result.ts";

/** Shows a caller's value in a message without letting a huge or multi-line one through. */
export function shown(value: string): string {
  const oneLine = JSON.stringify(value);
  return oneLine.length <= 80 ? oneLine : `${oneLine.slice(0, 79)}…"`;
}

const KEY_SHAPES = {
  issue: 'Issue keys look like "PROJ-123": a project key, a hyphen, a number.',
  project: 'Project keys look like "PROJ": a letter followed by letters, digits or underscores.',
};

export function notAKey(value: string, kind: keyof typeof KEY_SHAPES) {
  return err(toolError("invalid_params", `${shown(value)} is not a Jira ${kind} key`, KEY_SHAPES[kind]));
}
