// Per-sample latencies from mlperf_log_trace.json: each sample's "Sample"
// begin event carries complete_ns, its latency from the scheduled time (the
// same number LoadGen's percentiles are taken over). The official file is not
// valid JSON as a whole (its LogDetail events quote names twice), so it is read
// one event a line, streaming: a long run's trace is hundreds of MB.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const SAMPLE_BEGIN = '{"name":"Sample","cat":"default","ph":"b"';
const COMPLETE = /"complete_ns":(\d+)/;

/** Latencies (ns) of every sample in the trace, in file order; empty when it holds none. */
export async function readTraceLatencies(path: string): Promise<Float64Array> {
  const out: number[] = [];
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.startsWith(SAMPLE_BEGIN)) continue;
    const m = COMPLETE.exec(line);
    if (m) out.push(Number(m[1]));
  }
  return Float64Array.from(out);
}
