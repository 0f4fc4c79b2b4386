import { escapeInvisibles } from "../core/plain-text.ts";

/**
 * A tool's data as a person reads it: indented JSON, then each multi-line text field (a drawn
 * branch tree) once more as the text it is, since escaped newlines make it unreadable.
 */
export function renderToolData(data: Record<string, unknown>): string {
  // The JSON keeps every value: characters a terminal would act on stay escaped (`\uXXXX`).
  let text = `${escapeInvisibles(JSON.stringify(data, null, 2))}\n`;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string" && value.includes("\n")) text += `\n${key}:\n${value.replace(/\n?$/, "\n")}`;
  }
  return text;
}
