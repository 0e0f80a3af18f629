// @x/loadgen/metrics: the servers' Prometheus /metrics, as runBenchmark
// scrapes them during a run (vLLM and SGLang names). API.md, section
// @x/loadgen/metrics.
export { parsePrometheusText } from './metrics/prom-text.js';
export type { PromSample } from './metrics/prom-text.js';
export { snapshotOf } from './metrics/server-snapshot.js';
export type { ServerSnapshot } from './metrics/server-snapshot.js';
export { METRIC_NAMES } from './metrics/metric-names.js';
export type { MetricNames, ServerFlavor } from './metrics/metric-names.js';
export { MetricsScraper } from './metrics/scraper.js';
export type { ScraperOptions } from './metrics/scraper.js';
export type { MetricsPoint } from './metrics/series.js';
export type { ServerMetricsReport, EndpointServerMetrics } from './metrics/summary.js';
export type { EnergyReport, EnergySourceReport, GpuEnergy } from './metrics/energy.js';
