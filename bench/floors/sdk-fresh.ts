/**
 * Floor (b) plus what seeing the repository as it is now costs: before each answer it makes the
 * six `stat`/`lstat` calls twig-mcp's `get_current_branch` makes on every call, on the same paths
 * of the repository in its working directory (the `.git` directory and `config` that locate the
 * repository, `HEAD`, the checked-out branch's loose ref and `packed-refs`, and the twig state).
 * Nothing is read or parsed; only the system calls are paid.
 */
import { lstatSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { serveSdkFloor } from "./sdk-server.ts";

const root = process.cwd();
const git = join(root, ".git");
const head = readFileSync(join(git, "HEAD"), "utf8")
  .trim()
  .replace(/^ref: /, "");
const stats = [git, join(git, "config"), join(git, "packed-refs"), join(root, ".twig", "state.json")];
const lstats = [join(git, "HEAD"), join(git, head)];

serveSdkFloor(() => {
  for (const path of stats) statSync(path, { throwIfNoEntry: false });
  for (const path of lstats) lstatSync(path, { throwIfNoEntry: false });
});
