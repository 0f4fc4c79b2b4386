import { clip, inline, plainText } from "../../core/plain-text.ts";
import type { DiscoveredRepo } from "../../git/discover.ts";
import type { ForecastLink, RestackForecast } from "../../git/merge/forecast.ts";
import type { WorkBudget } from "../../git/objects/budget.ts";
import { resolveRef } from "../../git/refs.ts";
import {
  type BranchFacts,
  type Forecast,
  type Plan,
  type PlannedStep,
  renderRewrite,
  shown,
  shownPath,
} from "./next-steps.ts";

/** Files a conflicting step's `why` names to look at first. */
const FIRST_FILES = 3;

/**
 * Tells the plan what only the object store knows, then forecasts each rewrite step in plan order (a child's from
 * its parent's result): a merged PR's head is an old base only if the commit is here (`pr_head_stored`); a move with
 * no old base from its parent's tip, PR or remote-tracking ref gets one found by content (`squashed_base`), and
 * `plan` is asked again, as it is when a new base's name is also a ref git takes first (`shadowed`). The engine (src/git/merge/) is loaded on the first forecast, as the commit reader is: it
 * is no start-up cost. Shares the call's `budget` with the commit reads; a cancelled `signal` ends it by throwing.
 */
export async function forecastPlan(
  repo: DiscoveredRepo,
  facts: BranchFacts[],
  plan: () => Plan,
  { budget, signal, shadowed }: { budget: WorkBudget; signal?: AbortSignal; shadowed: Map<string, string> },
): Promise<Map<string, Forecast>> {
  const forecasts = new Map<string, Forecast>();
  let planned = plan();
  if (!planned.steps.some((step) => step.rewrite) && !planned.actions.some((action) => action?.kind === "move")) {
    return forecasts;
  }
  const { openForecastContext, forecastRestack } = await import("../../git/merge/forecast.ts");
  const { findSquashedBase, ownRun } = await import("../../git/merge/squash-base.ts");
  using context = openForecastContext(repo, { budget, signal });
  await context.store.openPacks(signal);
  const tipOf = async (branch: string) => {
    const read = facts.find((fact) => fact.branch === branch)?.commits?.head?.sha;
    if (read !== undefined) return read;
    const ref = await resolveRef(repo, `refs/heads/${branch}`);
    return ref.ok && ref.value?.length === 40 ? ref.value : undefined;
  };
  const here = (sha: string | undefined) => sha !== undefined && /^[0-9a-f]{40}$/.test(sha) && context.store.has(sha);
  for (const fact of facts) if (fact.pr?.state === "merged") fact.pr_head_stored = here(fact.pr.head_sha);
  planned = plan();
  let found = false;
  for (const [i, action] of planned.actions.entries()) {
    const fact = facts[i] as BranchFacts;
    if (action?.kind !== "move" || action.onto === undefined) continue;
    if (planned.steps.some((step) => step.rewrite?.branch === fact.branch)) continue;
    const [branchTip, newBase] = [fact.commits?.head?.sha, await tipOf(action.onto)];
    if (branchTip === undefined || newBase === undefined) continue;
    fact.squashed_base = await findSquashedBase(context, { branchTip, newBase });
    found ||= fact.squashed_base !== undefined;
  }
  if (found) planned = plan();
  // `git rebase main` takes `.git/main`, `refs/main` or the tag `main` before the branch: such a base gets no step.
  for (const onto of new Set(planned.steps.flatMap(({ rewrite }) => rewrite?.onto ?? []))) {
    for (const ref of [...(/^[A-Z_]+$/.test(onto) ? [onto] : []), `refs/${onto}`, `refs/tags/${onto}`]) {
      const other = await resolveRef(repo, ref);
      if (!other.ok || other.value !== null) shadowed.set(onto, ref);
    }
  }
  if (shadowed.size > 0) planned = plan();

  const links = new Map<string, ForecastLink>();
  for (const { rewrite } of planned.steps) {
    if (rewrite === undefined) continue;
    const { branch, onto } = rewrite;
    const [tip, parent] = [await tipOf(branch), links.get(onto)];
    const ontoTip = parent === undefined ? await tipOf(onto) : undefined;
    let oldBase = rewrite.oldBase;
    // `git rebase NEW B` replays what NEW lacks: from where B's own commits fork.
    if (oldBase === undefined && tip !== undefined && ontoTip !== undefined) {
      const own = await ownRun(context, { branchTip: tip, newBase: ontoTip });
      oldBase = own === undefined ? undefined : context.ids.oidOf(own.fork);
    }
    // A new base that cannot be read leaves nothing to forecast onto: `unknown`, as an unknown old base.
    const newBase = parent ?? ontoTip;
    const step = { branch, tip, oldBase: newBase === undefined ? undefined : oldBase, onto: newBase ?? "" };
    const link = await forecastRestack(context, step);
    links.set(branch, link);
    forecasts.set(branch, shownForecast(link.forecast, parent));
  }
  return forecasts;
}

/** The steps as replied: each rewrite with its forecast, the one that will stop for conflicts said so. */
export function withForecasts(steps: readonly PlannedStep[], forecasts: ReadonlyMap<string, Forecast>): PlannedStep[] {
  return steps.map(({ rewrite, ...step }) => {
    const forecast = rewrite && forecasts.get(rewrite.branch);
    if (rewrite === undefined || forecast === undefined) return step;
    if (forecast.result !== "conflicts") return { ...step, forecast };
    const first = (forecast.files ?? []).slice(0, FIRST_FILES).map(({ path, kind, lines: ranges }) => {
      const [range] = ranges ?? [];
      const lines = range && (range.start === range.end ? `line ${range.start}` : `lines ${range.start}–${range.end}`);
      return `${shownPath(path)} (${lines ?? kind})`;
    });
    // The rebase stops with the rest of its command (push, retarget) not run: the step goes on from there.
    const rest = step.command === renderRewrite(rewrite) ? "" : ", then the rest of this command";
    const resume = `once resolved, \`${rewrite.git} rebase --continue\`${rest}`;
    const why = `${step.why}; it will stop for conflicts: look first at ${first.join(", ")}; ${resume}`;
    return { ...step, what: `${step.what} (stops for conflicts)`, why, forecast };
  });
}

/** The engine's forecast as a reply holds it: paths as plain text, clipped; empty lists and zero counts left out. */
function shownForecast(forecast: RestackForecast, parent: ForecastLink | undefined): Forecast {
  const plain = <T extends { path: string }>(files: T[]) =>
    files.map((file) => ({ ...file, path: clip(plainText(file.path), 255) }));
  const { unknown, files, undecided } = forecast;
  // The parent's name is someone's text: prose shows it as data.
  const message =
    unknown?.reason === "waits_on_parent" && parent !== undefined
      ? `waits on ${shown(parent.branch)}'s ${parent.forecast.result === "conflicts" ? "conflicts" : "unknown result"}`
      : inline(unknown?.message ?? "", 300);
  const shownParts = { ...forecast, files: plain(files), undecided: plain(undecided) };
  const said = Object.entries(shownParts).filter(
    ([, value]) => value !== 0 && !(Array.isArray(value) && !value.length),
  );
  return { ...Object.fromEntries(said), ...(unknown && { unknown: { reason: unknown.reason, message } }) } as Forecast;
}
