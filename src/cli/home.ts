import { userInfo } from "node:os";
import { homeDir } from "../twig/dirs.ts";

/** This user's home as twig computes it (`$HOME`, else the passwd entry; the profile on Windows). */
export function userHome(): string | null {
  return homeDir(process.env, process.platform, passwdHome);
}

function passwdHome(): string | null {
  try {
    return userInfo().homedir || null;
  } catch {
    return null;
  }
}
