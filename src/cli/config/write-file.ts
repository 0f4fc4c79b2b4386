import { chmod, copyFile, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { describeFsError } from "../../fs/cached-file.ts";

/** `path` follows a symlinked dotfile to its target; `text` is `null` when there is no file yet. */
interface ConfigFile {
  path: string;
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
 * Copies the file to `<file>.bak`, then renames a temporary file over it, so a crash never leaves
 * half a config. Keeps the mode; a new file is 0600 (`env` may hold tokens). Writes nothing if the
 * file changed since it was read.
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
