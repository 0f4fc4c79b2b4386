import { chmod, copyFile, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { describeFsError } from "../../fs/cached-file.ts";

export interface ConfigFile {
  /** The file that is really read and written: a symlinked dotfile is followed to its target. */
  path: string;
  /** `null` when the file does not exist yet. */
  text: string | null;
}

export async function readConfigFile(path: string): Promise<Result<ConfigFile, string>> {
  let target = path;
  try {
    if ((await lstat(path)).isSymbolicLink()) target = await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return ok({ path, text: null });
    return err(`cannot open ${path}: ${describeFsError(error)}`);
  }
  try {
    const bytes = await readFile(target);
    // ignoreBOM keeps a byte-order mark in the text, so it is written back as it was.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return ok({ path: target, text });
  } catch (error) {
    if (error instanceof TypeError) return err(`${path} is not UTF-8 text`);
    return err(`cannot read ${path}: ${describeFsError(error)}`);
  }
}

/**
 * Replaces the file's content: the current file is copied to `<file>.bak` first, then the new text
 * goes to a temporary file beside it that is renamed over the original, so a crash or a full disk
 * never leaves a half-written config. The original's permissions are kept; a new file is 0600, as
 * client configs may come to hold tokens in `env`. If the client changed the file since it was
 * read, nothing is written (its change would otherwise be lost).
 */
export async function replaceConfigFile(
  file: ConfigFile,
  text: string,
): Promise<Result<{ backup: string | null }, string>> {
  const temporary = `${file.path}.twig-mcp-${process.pid}.tmp`;
  try {
    await mkdir(dirname(file.path), { recursive: true });
    let backup: string | null = null;
    let mode = 0o600;
    if (file.text !== null) {
      const current = await readConfigFile(file.path);
      if (!current.ok || current.value.text !== file.text) {
        return err(`${file.path} changed while it was being edited; nothing was written, run the command again`);
      }
      backup = `${file.path}.bak`;
      await copyFile(file.path, backup);
      mode = (await stat(file.path)).mode & 0o7777;
    }
    await writeFile(temporary, text, { mode });
    await chmod(temporary, mode);
    await rename(temporary, file.path);
    return ok({ backup });
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    return err(`cannot write ${file.path}: ${describeFsError(error)}`);
  }
}
