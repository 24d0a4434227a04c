/**
 * A time as the replay shows it: one format, the office's locale (the machine's), date and time to
 * the second, as the HTML report shows it; UTC in the tooltip.
 */
const FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function When({ iso }: { iso: string }) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <>{iso}</>;
  const utc = d.toISOString();
  return (
    <time dateTime={utc} title={`${utc.slice(0, 10)} ${utc.slice(11, 19)} UTC`}>
      {FORMAT.format(d)}
    </time>
  );
}
