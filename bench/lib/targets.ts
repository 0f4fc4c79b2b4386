import { formatRatio } from "./table.ts";

/**
 * What no server can go below, measured in the same run: for a per-call target, floor (a)
 * writing the tool's own reply and doing nothing else. When that floor alone is over a target's
 * line, no implementation can meet it on this machine, and the report says so instead of leaving
 * a bare MISS to be read as work left undone.
 */
export interface TargetFloor {
  /** The floor as a ratio to the target's reference (the same reference the target's ratio uses). */
  ratio: number;
  /** What the floor is, for the report: "floor (a) writing its 245.3 KB reply alone". */
  what: string;
}

export interface TargetResult {
  name: string;
  pass: boolean;
  measured: string;
  stretch?: boolean;
  /** The target's line, as a ratio; with `floor`, whether the floor alone is over it. */
  limit?: number;
  floor?: TargetFloor;
}

/** The floor of a missed target when that floor alone is over its line, else `undefined`. */
export function floorOverLine(target: TargetResult): TargetFloor | undefined {
  const { pass, floor, limit } = target;
  return !pass && floor !== undefined && limit !== undefined && floor.ratio > limit ? floor : undefined;
}

/** A missed target whose measured floor alone is over its line: out of any server's reach in this run. */
export function outOfReach(target: TargetResult): boolean {
  return floorOverLine(target) !== undefined;
}

/** One line per target: `PASS`/`MISS`, the name padded to a column, what was measured, and a floor over the line. */
export function targetLines(targets: readonly TargetResult[]): string[] {
  const width = Math.max(0, ...targets.map((x) => x.name.length));
  return targets.map((x) => {
    const line = `${x.pass ? "PASS" : "MISS"}  ${x.name.padEnd(width)}  ${x.measured}`;
    const floor = floorOverLine(x);
    return floor ? `${line}; out of reach: ${floor.what} is ${formatRatio(floor.ratio)}` : line;
  });
}

/** "24 of 32 met; 4 of the 8 missed are out of reach (a floor measured in this run is over the line)". */
export function targetSummary(targets: readonly TargetResult[]): string {
  const met = targets.filter((x) => x.pass).length;
  const missed = targets.length - met;
  const beyond = targets.filter(outOfReach).length;
  const head = `${met} of ${targets.length} met`;
  if (beyond === 0) return head;
  return `${head}; ${beyond} of the ${missed} missed ${beyond === 1 ? "is" : "are"} out of reach (a floor measured in this run is over the line)`;
}
