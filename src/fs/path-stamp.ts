import { statIfExistsSync } from "./local-fs.ts";
import { type FileStamp, sameStamp, stampOf } from "./stamped-cache.ts";

/** The identity and last change of one path, as `stat` (following symlinks) reports them. */
export interface PathStamp extends FileStamp {
  path: string;
  dev: number;
}

export function pathStampOf(path: string, info: FileStamp & { dev: number }): PathStamp {
  return { path, dev: info.dev, ...stampOf(info) };
}

export function samePathStamp(a: PathStamp, b: PathStamp): boolean {
  return a.dev === b.dev && sameStamp(a, b);
}

/** The path's stamp now; `null` when it cannot be stamped (gone, or not reachable). */
export function stampPath(path: string): PathStamp | null {
  let info: ReturnType<typeof statIfExistsSync>;
  try {
    info = statIfExistsSync(path);
  } catch {
    return null;
  }
  return info === undefined ? null : pathStampOf(path, info);
}

/** Whether a path still has the stamp it had (a cache validating what rests on it). */
export function unchangedPath(previous: PathStamp): boolean {
  const now = stampPath(previous.path);
  return now !== null && samePathStamp(now, previous);
}
