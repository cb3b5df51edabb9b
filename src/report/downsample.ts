/**
 * Most points one line series of a report chart carries. A run's series have a point per interval:
 * 200,000 of them (`--interval 10us`, or a long run) would make report.html tens of megabytes and
 * slow to render, for a chart 960 pixels wide.
 */
export const MAX_SERIES_POINTS = 1200;

/**
 * The points of a line, at most `max`: consecutive points are grouped, and each group keeps its
 * lowest and its highest point, in time order — a spike or a dip survives, as it would not an
 * average. Short series come back unchanged. Points are [x, y], ascending in x.
 */
export function downsample(points: readonly [number, number][], max = MAX_SERIES_POINTS): [number, number][] {
  if (points.length <= max) return [...points];
  const per = Math.ceil(points.length / Math.floor(max / 2));
  const out: [number, number][] = [];
  for (let start = 0; start < points.length; start += per) {
    const end = Math.min(start + per, points.length);
    let low = start;
    let high = start;
    for (let i = start + 1; i < end; i++) {
      if (points[i]![1] < points[low]![1]) low = i;
      if (points[i]![1] > points[high]![1]) high = i;
    }
    if (low === high) out.push(points[low]!);
    else out.push(points[Math.min(low, high)]!, points[Math.max(low, high)]!);
  }
  return out;
}
