import { ASCII_CONTROLS } from "../core/plain-text.ts";

/** What git refuses anywhere in a name: a control, a space, `~ ^ : ? * [` and backslash. */
const BAD_CHARACTER = new RegExp(`[${ASCII_CONTROLS} ~^:?*[\\\\]`);
/** Letters, digits, `_` and `-` in `/`-separated components break no rule: nearly every branch, checked fast. */
const PLAIN_REFNAME = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/;

/** `git check-ref-format`: `null` when `refname` is well formed, else why not. */
export function checkRefnameFormat(refname: string): string | null {
  if (PLAIN_REFNAME.test(refname)) return null;
  if (refname === "") return "is empty";
  if (refname === "@") return "is '@'";
  if (!refname.isWellFormed()) return "is not valid Unicode";
  const bad = BAD_CHARACTER.exec(refname)?.[0];
  if (bad === " ") return "contains a space";
  if (bad !== undefined) return "~^:?*[\\".includes(bad) ? `contains '${bad}'` : "contains a control character";
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

/** `git check-ref-format --branch`; `@` is refused (git 2.39 creates it): alone it means HEAD in every revision. */
export function checkBranchName(name: string): string | null {
  if (name === "") return "is empty";
  if (name.startsWith("-")) return "starts with '-'";
  if (name === "HEAD") return "is 'HEAD'";
  if (name === "@") return "is '@', which git reads as HEAD";
  if (name.startsWith("/")) return "starts with '/'";
  return checkRefnameFormat(`refs/heads/${name}`);
}
