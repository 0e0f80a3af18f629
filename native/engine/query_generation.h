// Which QSL samples a test loads, and the queries it issues: sample indices
// and scheduled times, generated up front from the seeds exactly as the
// official engine generates them (GenerateLoadableSets / GenerateQueries).
#pragma once

#include <cstdint>
#include <vector>

#include "effective_settings.h"

namespace lg {

struct LoadableSet {
  std::vector<uint64_t> set;         // QSL indices, MultiStream padding included
  uint64_t sample_distribution_end;  // size without the padding
};

std::vector<LoadableSet> GenerateLoadableSets(const EffectiveSettings& s, uint64_t requested_count,
                                              uint64_t qsl_total_count);

struct GeneratedQueries {
  std::vector<int64_t> scheduled_delta_ns;  // per query, from test start
  std::vector<uint64_t> query_offset;       // per query + 1: first sample of each query
  std::vector<uint64_t> sample_index;       // per sample: QSL index
  uint64_t samples_per_query = 0;           // as logged in generated_samples_per_query
  int64_t duration_ns = 0;                  // as logged in generated_query_duration
  size_t query_count() const { return scheduled_delta_ns.size(); }
};

// `accuracy` selects the accuracy-mode generation (every loaded sample once).
GeneratedQueries GenerateQueries(const EffectiveSettings& s, const LoadableSet& loaded, bool accuracy);

}  // namespace lg
