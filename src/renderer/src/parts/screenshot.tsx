import { useState } from 'react';
import { useModel } from '../console-context';
import { useScreenshot } from '../screenshots';
import { Lightbox } from './lightbox';

/** A step's screenshot from the store, as a thumbnail or full width; a click enlarges it. */
export function StepScreenshot({ hash, alt, size }: { hash: string | null; alt: string; size: 'thumb' | 'large' }) {
  const model = useModel();
  const shot = useScreenshot(model.api, hash);
  const [open, setOpen] = useState(false);
  if (!hash || shot.missing) return <div className={`shot shot-${size} shot-none`}>{hash ? 'screenshot purged' : 'no screenshot'}</div>;
  if (!shot.url) return <div className={`shot shot-${size} shot-loading`}>loading…</div>;
  return (
    <>
      <button type="button" className={`shot shot-${size}`} onClick={() => setOpen(true)} title="Enlarge">
        <img src={shot.url} alt={alt} />
      </button>
      {open && <Lightbox src={shot.url} alt={alt} onClose={() => setOpen(false)} />}
    </>
  );
}
