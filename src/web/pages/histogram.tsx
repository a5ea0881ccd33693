import { BINS } from '../histogram.ts';

const WIDTH = 120;
const HEIGHT = 28;

/** A numeric column's distribution as a small server-drawn SVG: no script, and readable as text too. */
export function Histogram(props: { bins: number[]; label: string }) {
  const top = Math.max(1, ...props.bins);
  const bar = WIDTH / BINS;
  return (
    <svg class="histogram" width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={props.label}>
      {props.bins.map((count, i) => {
        const h = count === 0 ? 0 : Math.max(1, (count / top) * HEIGHT);
        return (
          <rect x={i * bar + 0.5} y={HEIGHT - h} width={bar - 1} height={h}>
            <title>{`${count}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
