type Planner = 'rules' | 'anthropic';

/** Which planner decides the pages: the offline rules, or Claude once an API key is set (the day's queue and a single case ask the same). */
export function PlannerSelect({ value, onChange, ariaLabel, anthropicReady, className }: { value: Planner; onChange: (planner: Planner) => void; ariaLabel: string; anthropicReady: boolean; className?: string }) {
  return (
    <label className={className}>
      Planner
      <select value={value} onChange={(e) => onChange(e.target.value as Planner)} aria-label={ariaLabel}>
        <option value="rules">rules (offline)</option>
        <option value="anthropic" disabled={!anthropicReady}>
          Claude{anthropicReady ? '' : ' (no API key)'}
        </option>
      </select>
    </label>
  );
}
