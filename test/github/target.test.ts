import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ok } from "../../src/core/result.ts";
import { knownGitHubHosts } from "../../src/creds/github-hosts.ts";
import { chooseRemote, resolveTarget } from "../../src/github/target.ts";
import { cleanupTemp, expectErr, expectOk, makeContext, makeRepo } from "./helpers.ts";

afterAll(cleanupTemp);

const plain = { ghHost: null, isGitHubHost: knownGitHubHosts({}, []) };

function remotes(...list: Array<[string, string]>) {
  return list.map(([name, url]) => ({ name, url }));
}

describe("chooseRemote", () => {
  test("origin on github.com", () => {
    expect(chooseRemote(remotes(["origin", "git@github.com:o/r.git"]), plain)).toEqual(
      ok({ host: "github.com", owner: "o", repo: "r" }),
    );
  });

  test("origin elsewhere: the first remote on a GitHub host", () => {
    const list = remotes(
      ["origin", "https://gitlab.com/me/r.git"],
      ["mirror", "https://bitbucket.org/me/r.git"],
      ["upstream", "https://github.com/up/r.git"],
      ["other", "https://github.com/other/r.git"],
    );
    expect(chooseRemote(list, plain)).toEqual(ok({ host: "github.com", owner: "up", repo: "r" }));
  });

  test("origin on GitHub wins over earlier remotes", () => {
    const list = remotes(["upstream", "https://github.com/up/r.git"], ["origin", "https://github.com/me/r.git"]);
    expect(chooseRemote(list, plain)).toEqual(ok({ host: "github.com", owner: "me", repo: "r" }));
  });

  test("an unknown origin host is taken as GitHub Enterprise Server", () => {
    expect(chooseRemote(remotes(["origin", "https://git.corp.example/team/svc.git"]), plain)).toEqual(
      ok({ host: "git.corp.example", owner: "team", repo: "svc" }),
    );
  });

  test("look-alike hosts are not github.com", () => {
    const list = remotes(["origin", "https://github.com.evil.example/o/r.git"]);
    expect(chooseRemote(list, plain)).toEqual(ok({ host: "github.com.evil.example", owner: "o", repo: "r" }));
    const withReal = remotes(
      ["origin", "https://github.com.evil.example/o/r.git"],
      ["gh", "https://github.com/real/r"],
    );
    expect(chooseRemote(withReal, plain)).toEqual(ok({ host: "github.com", owner: "real", repo: "r" }));
  });

  test("hosts the gh CLI is logged in to count as GitHub", () => {
    const options = { ghHost: null, isGitHubHost: knownGitHubHosts({}, ["ghe.corp"]) };
    const list = remotes(["origin", "https://git.other.example/o/r"], ["work", "git@ghe.corp:team/svc.git"]);
    expect(chooseRemote(list, options)).toEqual(ok({ host: "ghe.corp", owner: "team", repo: "svc" }));
  });

  test("GH_HOST: a remote on that host, else origin's owner/repo taken to that host (SSH aliases)", () => {
    const options = { ghHost: "ghe.corp", isGitHubHost: knownGitHubHosts({ GH_HOST: "ghe.corp" }, []) };
    const list = remotes(["origin", "https://github.com/o/r"], ["work", "https://ghe.corp/team/svc"]);
    expect(chooseRemote(list, options)).toEqual(ok({ host: "ghe.corp", owner: "team", repo: "svc" }));
    const alias = remotes(["origin", "git@github-work:team/svc.git"]);
    expect(chooseRemote(alias, { ...options, ghHost: "github.com" })).toEqual(
      ok({ host: "github.com", owner: "team", repo: "svc" }),
    );
  });

  test("only other forges: unsupported_repo", () => {
    const error = expectErr(chooseRemote(remotes(["origin", "https://gitlab.com/me/r.git"]), plain));
    expect(error.code).toBe("unsupported_repo");
    expect(error.message).toBe("No GitHub remote found: origin (https://gitlab.com/me/r.git) is not on GitHub");
    expect(error.hint).toContain("owner");
    // A caller that cannot name another repository is not told to.
    const unnamed = expectErr(
      chooseRemote(remotes(["origin", "https://gitlab.com/me/r.git"]), { ...plain, nameable: false }),
    );
    expect(unnamed.hint).toBe("The GitHub tools need a GitHub remote.");
  });

  test("no remotes, or none parseable: not_found with hints; tokens in URLs are not shown", () => {
    const none = expectErr(chooseRemote([], plain));
    expect(none.code).toBe("not_found");
    expect(none.message).toBe("No GitHub remote found: the repository has no remotes");
    expect(none.hint).toContain("git remote add origin");
    const local = expectErr(
      chooseRemote(remotes(["origin", "/srv/git/r.git"], ["x", "https://ghp_secret@github.com/only-owner"]), plain),
    );
    expect(local.code).toBe("not_found");
    expect(local.message).toContain("origin (/srv/git/r.git)");
    expect(local.message).not.toContain("ghp_secret");
  });
});

describe("resolveTarget", () => {
  test("explicit owner/repo need no repository; host is GH_HOST or github.com", async () => {
    const { ctx } = makeContext();
    expect(await resolveTarget(ctx, { owner: "o", repo: "r" })).toEqual(
      ok({ host: "github.com", owner: "o", repo: "r" }),
    );
    const { ctx: ghes } = makeContext({ env: { GH_HOST: "GHE.corp" } });
    expect(await resolveTarget(ghes, { owner: "o", repo: "r" })).toEqual(
      ok({ host: "ghe.corp", owner: "o", repo: "r" }),
    );
  });

  test("reads origin from the repository, insteadOf applied", async () => {
    const repo = makeRepo({
      remotes: [["origin", "gh:octo/my.repo"]],
      extraConfig: [["url.git@github.com:.insteadOf", "gh:"]],
    });
    const { ctx } = makeContext({ repo: ok(repo) });
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "github.com", owner: "octo", repo: "my.repo" });
  });

  test("insteadOf rules in the user's ~/.gitconfig apply too, as libgit2 reads them for twig", async () => {
    const repo = makeRepo({ remotes: [["origin", "work:platform/api"]] });
    const { ctx, home } = makeContext({ repo: ok(repo) });
    // Unrewritten, `work:` reads as an scp-like host.
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "work", owner: "platform", repo: "api" });
    writeFileSync(join(home, ".gitconfig"), '[url "git@github.com:acme-"]\n\tinsteadOf = work:\n');
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "github.com", owner: "acme-platform", repo: "api" });
  });

  test("an ssh remote on a ~/.ssh/config Host alias is the HostName's repository", async () => {
    const repo = makeRepo({
      remotes: [
        ["origin", "git@github-work:octo/widgets.git"],
        ["ssh-url", "ssh://git@github-work:22/octo/gadgets.git"],
        ["https", "https://github-work/octo/https.git"],
      ],
    });
    const { ctx, home } = makeContext({ repo: ok(repo) });
    // Without the alias, the host is taken as GitHub Enterprise Server named github-work.
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "github-work", owner: "octo", repo: "widgets" });
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "config"), "Host github-work\n  HostName github.com\n  User git\n");
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "github.com", owner: "octo", repo: "widgets" });
    // ssh:// remotes too; an https URL never goes through ssh, so its host stays as written.
    const sshHostName = (alias: string) => (alias === "github-work" ? "github.com" : null);
    const options = { ...plain, sshHostName };
    expect(chooseRemote(remotes(["origin", "ssh://git@github-work:22/octo/gadgets.git"]), options)).toEqual(
      ok({ host: "github.com", owner: "octo", repo: "gadgets" }),
    );
    expect(chooseRemote(remotes(["origin", "https://github-work/octo/https.git"]), options)).toEqual(
      ok({ host: "github-work", owner: "octo", repo: "https" }),
    );
  });

  test("falls back to the first remote on a GitHub host", async () => {
    const repo = makeRepo({
      remotes: [
        ["origin", "https://gitlab.com/me/r.git"],
        ["upstream", "ssh://git@github.com:22/up/r.git"],
      ],
    });
    const { ctx } = makeContext({ repo: ok(repo) });
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "github.com", owner: "up", repo: "r" });
  });

  test("a host from gh's hosts.yml counts as GitHub", async () => {
    const repo = makeRepo({
      remotes: [
        ["origin", "https://git.example.org/me/r.git"],
        ["corp", "https://ghe.corp/team/svc.git"],
      ],
    });
    const { ctx, home } = makeContext({ repo: ok(repo) });
    mkdirSync(join(home, ".config", "gh"), { recursive: true });
    writeFileSync(join(home, ".config", "gh", "hosts.yml"), "ghe.corp:\n    user: me\n");
    expect(expectOk(await resolveTarget(ctx, {}))).toEqual({ host: "ghe.corp", owner: "team", repo: "svc" });
  });

  test("a repository without remotes", async () => {
    const repo = makeRepo({});
    const { ctx } = makeContext({ repo: ok(repo) });
    const error = expectErr(await resolveTarget(ctx, {}));
    expect(error.code).toBe("not_found");
  });

  test("no repository at all", async () => {
    const { ctx } = makeContext();
    const error = expectErr(await resolveTarget(ctx, {}));
    expect(error.code).toBe("no_repo");
    expect(error.hint).toContain("`owner` and `repo`");
  });

  test("only one of owner/repo", async () => {
    const { ctx } = makeContext();
    expect(expectErr(await resolveTarget(ctx, { repo: "r" })).code).toBe("invalid_params");
  });
});
