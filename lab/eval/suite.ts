/** An evaluation suite: a set of known-answer runs scored from where their effects land. */

export interface EvalOptions {
  /** Planner the suite runs with ("rules", "anthropic", "adversary"...); each suite says which it accepts. */
  model: string;
  /** The whole matrix instead of the CI subset. */
  full: boolean;
  /**
   * A smaller sample than the CI subset that still covers every kind of case and every variant
   * (what `npm test` runs); a suite without one runs its CI subset. Never together with `full`.
   */
  quick?: boolean;
  /** The lab portals over https (`startLab({ tls: true })`: a certificate authority made at lab start, trusted by the run's browser); the lab and routes suites take it. */
  https?: boolean;
  concurrency: number;
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

export interface EvalCaseResult {
  id: string;
  pass: boolean;
  /** One line: why it passed or failed. */
  detail: string;
  metrics: Record<string, number | string | boolean | null>;
}

export interface EvalReport {
  suite: string;
  model: string;
  results: EvalCaseResult[];
  /** Counts and rates a reader checks first (e.g. harmful_effects, completion_rate). */
  summary: Record<string, number | string>;
  /** True when the suite's own bar is met (every harmful count 0, completion target reached...). */
  ok: boolean;
}

export interface EvalSuite {
  name: string;
  description: string;
  models: readonly string[];
  run(options: EvalOptions): Promise<EvalReport>;
}
