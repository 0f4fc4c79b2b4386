/**
 * Ref-name rules of `git check-ref-format` (refs.c `check_refname_component`). Names are checked
 * before they reach a path (`refs/heads/<name>`) or a URL, so anything git would refuse is refused.
 */

/**
 * Names made only of letters, digits, `_` and `-` in non-empty `/`-separated components break no
 * rule below; nearly every branch is one, and listing 10,000 refs checks them all.
 */
const PLAIN_REFNAME = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/;

/**
 * `null` when `refname` (a full name such as `refs/heads/main`, or a one-level name such as
 * `HEAD`) is well formed, otherwise the reason it is not.
 */
export function checkRefnameFormat(refname: string): string | null {
  if (PLAIN_REFNAME.test(refname)) return null;
  if (refname === "") return "is empty";
  if (refname === "@") return "is '@'";
  if (!refname.isWellFormed()) return "is not valid Unicode";
  const bad = /[\x00-\x20\x7f~^:?*[\\]/.exec(refname)?.[0];
  if (bad === " ") return "contains a space";
  if (bad !== undefined) return bad < " " || bad === "\x7f" ? "contains a control character" : `contains '${bad}'`;
  if (refname.includes("..")) return "contains '..'";
  if (refname.includes("@{")) return "contains '@{'";
  if (refname.startsWith("/")) return "starts with '/'";
  if (refname.endsWith("/")) return "ends with '/'";
  if (refname.endsWith(".")) return "ends with '.'";
  const components = refname.split("/");
  for (const [index, component] of components.entries()) {
    if (component === "") return "contains an empty path component ('//')";
    if (component.startsWith(".")) return "has a path component starting with '.'";
    // git creates `<ref>.lock` files while updating `<ref>`, so such names would collide.
    if (component.endsWith(".lock")) {
      return index === components.length - 1 ? "ends with '.lock'" : "has a path component ending with '.lock'";
    }
  }
  return null;
}

/**
 * `null` when `name` is a valid branch name (`git check-ref-format --branch`), otherwise a short
 * reason. Beyond the ref-name rules, git refuses a leading `-` (it would read as an option) and
 * `HEAD`. `@` is refused too although git 2.39 creates such a branch: `@` alone means HEAD in every
 * revision argument, so the branch could never be named.
 */
export function checkBranchName(name: string): string | null {
  if (name === "") return "is empty";
  if (name.startsWith("-")) return "starts with '-'";
  if (name === "HEAD") return "is 'HEAD'";
  if (name === "@") return "is '@', which git reads as HEAD";
  if (name.startsWith("/")) return "starts with '/'";
  return checkRefnameFormat(`refs/heads/${name}`);
}
