/**
 * Every path-based system call a process makes, recorded with strace (`-f`: the server reads
 * files on worker threads). Used to prove which files the server opens for reading and that it
 * opens none for writing. `null` from {@link straceWrapper} when strace is missing or ptrace is
 * not allowed (some containers); tests then skip only the syscall-level assertions.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface FileSyscall {
  name: string;
  /** The first path argument, with strace's escapes undone for plain ASCII. */
  path: string;
  flags: string;
  /** The call's whole line, for messages. */
  line: string;
}

let available: boolean | null = null;

function straceAvailable(): boolean {
  if (available === null) {
    const strace = Bun.which("strace");
    available =
      strace !== null &&
      Bun.spawnSync([strace, "-f", "-qq", "-e", "trace=openat", "-o", "/dev/null", "true"]).exitCode === 0;
  }
  return available;
}

/** The command prefix that records into `<dir>/strace.txt`, or `null` when strace cannot run here. */
export function straceWrapper(dir: string): { wrapper: string[]; output: string } | null {
  if (!straceAvailable()) return null;
  const output = join(dir, "strace.txt");
  return {
    wrapper: [Bun.which("strace") as string, "-f", "-qq", "-s", "8192", "-e", "trace=%file", "-o", output],
    output,
  };
}

const CALL = /^(?:\d+\s+)?([a-z_0-9]+)\((.*)$/;

export function readTrace(output: string): FileSyscall[] {
  const calls: FileSyscall[] = [];
  for (const line of readFileSync(output, "utf8").split("\n")) {
    if (line.includes("resumed>")) continue;
    const match = CALL.exec(line);
    if (!match) continue;
    const [, name = "", rest = ""] = match;
    const path = /"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1] ?? "";
    calls.push({ name, path: unescapeStrace(path), flags: rest, line });
  }
  return calls;
}

function unescapeStrace(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/g, (_m, code: string) => {
    if (code.startsWith("x")) return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    if (/^[0-7]+$/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    return { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" }[code] ?? code;
  });
}

const OPENS = new Set(["open", "openat", "openat2", "creat"]);
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
/** Calls that change the file system by their nature. */
const MUTATIONS = new Set([
  "creat",
  "mkdir",
  "mkdirat",
  "rmdir",
  "unlink",
  "unlinkat",
  "rename",
  "renameat",
  "renameat2",
  "link",
  "linkat",
  "symlink",
  "symlinkat",
  "chmod",
  "fchmodat",
  "chown",
  "lchown",
  "fchownat",
  "truncate",
  "utime",
  "utimes",
  "utimensat",
  "futimesat",
  "mknod",
  "mknodat",
  "setxattr",
  "lsetxattr",
  "removexattr",
  "lremovexattr",
]);

/** Opens for writing and calls that change the file system; stdout and stderr are inherited, never opened. */
export function writes(calls: readonly FileSyscall[]): FileSyscall[] {
  return calls.filter((call) => MUTATIONS.has(call.name) || (OPENS.has(call.name) && WRITE_FLAGS.test(call.flags)));
}

/** Opens that can read a file's content: not `O_PATH` (how realpath works), not a directory. */
export function contentReads(calls: readonly FileSyscall[]): FileSyscall[] {
  return calls.filter(
    (call) =>
      OPENS.has(call.name) &&
      !/O_PATH/.test(call.flags) &&
      !/O_DIRECTORY/.test(call.flags) &&
      !WRITE_FLAGS.test(call.flags),
  );
}

/** What any process reads to start and run: its libraries, /proc, /sys, /dev, time zone and TLS data. */
export const SYSTEM_READS = [
  /^\/proc\//,
  /^\/sys\//,
  /^\/dev\//,
  /^\/(usr\/)?lib(32|64|x32)?\//,
  /^\/etc\/ld\.so\./,
  /^\/etc\/localtime$/,
  /^\/usr\/share\/zoneinfo\//,
  /^\/etc\/(ssl|pki|ca-certificates)\//,
  /^\/usr\/(share|lib)\/ssl\//,
  /^\/etc\/(hosts|resolv\.conf|nsswitch\.conf|gai\.conf|host\.conf)$/,
];
