import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useId, useRef, useState } from 'react';

// Only what bar charts need: chart.js is tree-shaken to these, in the usage page's chunk.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** Colours that keep 3:1 against both themes' surfaces, in order of use. */
const PALETTE = ['#4f46e5', '#0e9f6e', '#d97706', '#db2777', '#0891b2', '#7c3aed', '#64748b'];

export interface Series {
  label: string;
  values: number[];
}

interface BarChartProps {
  title: string;
  /** One per bar (or stack), as the table's first column shows it. */
  labels: string[];
  /** Shorter labels for the axis, when the table's are long (dates). */
  axisLabels?: string[];
  series: Series[];
  stacked?: boolean;
  format: (value: number) => string;
  /** The first column's heading in the table. */
  labelHeading: string;
  /** Counts: no ticks between whole numbers. */
  wholeNumbers?: boolean;
}

/**
 * A bar chart with its table alternative: the canvas is hidden from assistive technology, the table
 * (visually hidden until shown) carries the same numbers for screen readers and for anyone who asks.
 */
export function BarChart({ title, labels, axisLabels, series, stacked = false, format, labelHeading, wholeNumbers = false }: BarChartProps) {
  const id = useId();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [showTable, setShowTable] = useState(false);

  useEffect(() => {
    if (canvas.current === null) return;
    const style = getComputedStyle(document.documentElement);
    const text = style.getPropertyValue('--muted').trim() || '#57606a';
    const grid = style.getPropertyValue('--border').trim() || '#dde1e7';
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: axisLabels ?? labels,
        datasets: series.map((entry, index) => ({ label: entry.label, data: entry.values, backgroundColor: PALETTE[index % PALETTE.length], borderRadius: 3 })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked, ticks: { color: text, maxRotation: 0, autoSkipPadding: 12 }, grid: { display: false } },
          y: { stacked, beginAtZero: true, ticks: { color: text, precision: wholeNumbers ? 0 : undefined, callback: (value) => format(Number(value)) }, grid: { color: grid } },
        },
        plugins: {
          legend: { display: series.length > 1, position: 'bottom', labels: { color: text, boxWidth: 12 } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${format(Number(item.raw))}` } },
        },
      },
    });
    return () => chart.destroy();
  }, [labels, axisLabels, series, stacked, format, wholeNumbers]);

  return (
    // Not a labelled region: the page's fields are found by their labels (`From`, `To`), and a
    // region named "Tokens per day" would answer to "To" as well.
    <section className="card chart-card">
      <div className="chart-header">
        <h2>{title}</h2>
        <button type="button" className="button button-small" aria-pressed={showTable} aria-controls={`${id}-table`} onClick={() => setShowTable((shown) => !shown)}>
          {showTable ? 'Hide table' : 'Show table'}
        </button>
      </div>
      <div className="chart-canvas">
        <canvas ref={canvas} aria-hidden="true" />
      </div>
      <div id={`${id}-table`} className={showTable ? 'chart-table' : 'visually-hidden'}>
        <table>
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{labelHeading}</th>
              {series.map((entry) => (
                <th scope="col" key={entry.label}>
                  {entry.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, row) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((entry) => (
                  <td key={entry.label}>{format(entry.values[row] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
