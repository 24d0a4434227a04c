/** How many cases at a time (1 to 4): the day's queue and the office queue ask the same. */
export function CountSelect({ label, ariaLabel, value, onChange }: { label: string; ariaLabel: string; value: number; onChange: (n: number) => void }) {
  return (
    <label className="inline-label">
      {label}
      <select value={value} onChange={(e) => onChange(Number(e.target.value))} aria-label={ariaLabel}>
        {[1, 2, 3, 4].map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}
