import { ticks } from './ticks';

const label = (v: number): string =>
  Math.abs(v) >= 1000 ? `${Number((v / 1000).toPrecision(3))}k` : String(Number(v.toPrecision(3)));

/**
 * A line chart in SVG with both axes: y from 0 (ticks and their values), x by `xs` (time ago, or any numbers),
 * named by `xLabel` and `yLabel`. Points are drawn as dots too, so a single value still shows.
 */
export function LineChart(props: {
  title: string;
  xs: number[];
  ys: number[];
  xLabel: string;
  yLabel: string;
  /** Fixed top of the y axis (1 for a ratio); else from the data. */
  yMax?: number;
  /** x tick values to label; else four spread over the data. */
  xTicks?: number[];
  /** How an x value is written on the axis. */
  xFormat?: (x: number) => string;
  testId?: string;
  summary?: string;
}) {
  const width = 320;
  const height = 150;
  const left = 44;
  const bottom = 34;
  const plotW = width - left - 10;
  const plotH = height - bottom - 10;
  const yTicks = ticks(props.yMax ?? Math.max(1e-9, ...props.ys));
  const yTop = yTicks[yTicks.length - 1] || 1;
  const xMin = props.xs.length > 0 ? Math.min(...props.xs) : 0;
  const xMax = Math.max(...props.xs, xMin + 1e-9);
  const x = (v: number): number => left + ((v - xMin) / (xMax - xMin || 1)) * plotW;
  const y = (v: number): number => 10 + plotH - (v / yTop) * plotH;
  const xTickValues =
    props.xTicks ?? (props.xs.length > 0 ? ticks(xMax, 4, xMin).filter((v) => v >= xMin && v <= xMax) : []);
  const format = props.xFormat ?? label;
  const line = props.xs.map((v, i) => `${x(v).toFixed(1)},${y(props.ys[i]).toFixed(1)}`).join(' ');
  return (
    <figure class="chart" data-testid={props.testId}>
      <figcaption>{props.summary ?? props.title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={props.title}>
        <g class="axis" stroke="currentColor" stroke-opacity="0.4">
          <line x1={left} y1={10} x2={left} y2={10 + plotH} />
          <line x1={left} y1={10 + plotH} x2={left + plotW} y2={10 + plotH} />
        </g>
        {yTicks.map((v) => (
          <g key={`y${v}`} class="tick">
            <line x1={left - 3} x2={left + plotW} y1={y(v)} y2={y(v)} stroke="currentColor" stroke-opacity="0.1" />
            <text x={left - 5} y={y(v) + 3} text-anchor="end" font-size="9" fill="currentColor">
              {label(v)}
            </text>
          </g>
        ))}
        {xTickValues.map((v) => (
          <text key={`x${v}`} x={x(v)} y={10 + plotH + 12} text-anchor="middle" font-size="9" fill="currentColor">
            {format(v)}
          </text>
        ))}
        <text x={left + plotW / 2} y={height - 3} text-anchor="middle" font-size="10" fill="currentColor">
          {props.xLabel}
        </text>
        <text
          x={10}
          y={10 + plotH / 2}
          text-anchor="middle"
          font-size="10"
          fill="currentColor"
          transform={`rotate(-90 10 ${10 + plotH / 2})`}
        >
          {props.yLabel}
        </text>
        <polyline class="series" points={line} fill="none" stroke="currentColor" stroke-width="1.5" />
        {props.xs.map((v, i) => (
          <circle key={i} class="series" cx={x(v)} cy={y(props.ys[i])} r="2" fill="currentColor" />
        ))}
      </svg>
    </figure>
  );
}
